// A local Hevy API server for tests, following Hevy's published API description (v1; the shapes
// are chrisdoc/hevy-mcp's openapi-spec.json, read 2026-11-28): `api-key` header, page/pageSize
// paging with `page_count`, the events feed newest first (one event per workout: its latest
// update, or its deletion), pageSize over the maximum refused with 400. What the tests steer: keys
// (revoke one: 401), workouts (log, edit, delete), exercise templates, and answers to put in front
// of the next requests (429 with Retry-After, 503), to see the client wait and retry.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HevyExerciseTemplate, HevyWorkout } from '../../services/sync/hevy-client.ts';

interface Stored {
  workout: HevyWorkout;
  /** The time of its latest event: its update, or its deletion. */
  at: string;
  deleted: boolean;
}

interface Injected {
  status: number;
  headers?: Record<string, string>;
  /** Only requests whose path starts with this (all when left out). */
  path?: string;
}

export interface FakeHevy {
  url: string;
  /** Every request's path and query, in order (the key is never recorded). */
  requests: string[];
  keys: Set<string>;
  templates: Map<string, HevyExerciseTemplate>;
  /** Logs or edits a workout at `at` (its `updated_at`). */
  put(workout: HevyWorkout, at: string): void;
  delete(id: string, at: string): void;
  /** Answers the next matching requests with these statuses, in order, before answering normally. */
  inject(...answers: Injected[]): void;
  /** Called before each events page is answered (a test may stop "the service" there). */
  onEventsPage: ((page: number) => void | Promise<void>) | null;
  close(): Promise<void>;
}

const EVENTS_MAX = 10;
const TEMPLATES_MAX = 100;

export async function startFakeHevy(): Promise<FakeHevy> {
  const workouts = new Map<string, Stored>();
  const injected: Injected[] = [];
  const fake: FakeHevy = {
    url: '',
    requests: [],
    keys: new Set(),
    templates: new Map(),
    put(workout, at) {
      workouts.set(workout.id, { workout: { ...workout, updated_at: at, created_at: workouts.get(workout.id)?.workout.created_at ?? at }, at, deleted: false });
    },
    delete(id, at) {
      const stored = workouts.get(id);
      if (!stored) throw new Error(`no workout ${id}`);
      workouts.set(id, { ...stored, at, deleted: true });
    },
    inject(...answers) {
      injected.push(...answers);
    },
    onEventsPage: null,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake-hevy');
    fake.requests.push(`${url.pathname}${url.search}`);
    const at = injected.findIndex((i) => !i.path || url.pathname.startsWith(i.path));
    if (at !== -1) {
      const [answer] = injected.splice(at, 1);
      return send(res, answer!.status, { error: 'injected' }, answer!.headers);
    }
    const key = req.headers['api-key'];
    if (typeof key !== 'string' || !fake.keys.has(key)) return send(res, 401, { error: 'Unauthorized' });
    const page = Number(url.searchParams.get('page') ?? 1);
    const pageSize = Number(url.searchParams.get('pageSize') ?? 5);
    const paged = <T>(items: T[], max: number): { page: number; page_count: number; items: T[] } | null => {
      if (!Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > max) return null;
      return { page, page_count: Math.ceil(items.length / pageSize), items: items.slice((page - 1) * pageSize, page * pageSize) };
    };
    if (url.pathname === '/v1/user/info') return send(res, 200, { data: { id: 'u-1', name: 'Ada', url: 'https://hevy.com/user/ada' } });
    if (url.pathname === '/v1/workouts/events') {
      const since = Date.parse(url.searchParams.get('since') ?? '1970-01-01T00:00:00Z');
      if (Number.isNaN(since)) return send(res, 400, { error: 'Invalid since' });
      const events = [...workouts.values()]
        .filter((s) => Date.parse(s.at) > since)
        .sort((a, b) => Date.parse(b.at) - Date.parse(a.at))
        .map((s) => (s.deleted ? { type: 'deleted', id: s.workout.id, deleted_at: s.at } : { type: 'updated', workout: s.workout }));
      const p = paged(events, EVENTS_MAX);
      if (!p) return send(res, 400, { error: 'Invalid page size' });
      await fake.onEventsPage?.(page);
      return send(res, 200, { page: p.page, page_count: p.page_count, events: p.items });
    }
    const workout = /^\/v1\/workouts\/([^/]+)$/.exec(url.pathname);
    if (workout) {
      const stored = workouts.get(decodeURIComponent(workout[1]!));
      return stored && !stored.deleted ? send(res, 200, stored.workout) : send(res, 404, { error: 'Workout not found' });
    }
    if (url.pathname === '/v1/exercise_templates') {
      const p = paged([...fake.templates.values()], TEMPLATES_MAX);
      if (!p) return send(res, 400, { error: 'Invalid page size' });
      return send(res, 200, { page: p.page, page_count: p.page_count, exercise_templates: p.items });
    }
    const template = /^\/v1\/exercise_templates\/([^/]+)$/.exec(url.pathname);
    if (template) {
      const found = fake.templates.get(decodeURIComponent(template[1]!));
      return found ? send(res, 200, found) : send(res, 404, { error: 'Exercise template not found' });
    }
    return send(res, 404, { error: 'Not found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** A Hevy workout as the API describes it, with what a test does not care about filled in. */
export function hevyWorkout(id: string, overrides: Partial<HevyWorkout> = {}): HevyWorkout {
  return {
    id,
    title: 'Push Day',
    description: '',
    start_time: '2026-05-20T08:00:00Z',
    end_time: '2026-05-20T09:05:00Z',
    exercises: [
      {
        index: 0,
        title: 'Bench Press (Barbell)',
        notes: '',
        exercise_template_id: '79D0BB3A',
        supersets_id: null,
        sets: [
          { index: 0, type: 'warmup', weight_kg: 40, reps: 10, distance_meters: null, duration_seconds: null, rpe: null, custom_metric: null },
          { index: 1, type: 'normal', weight_kg: 80, reps: 5, distance_meters: null, duration_seconds: null, rpe: 8, custom_metric: null },
        ],
      },
    ],
    ...overrides,
  };
}

export const BENCH_TEMPLATE: HevyExerciseTemplate = {
  id: '79D0BB3A',
  title: 'Bench Press (Barbell)',
  type: 'weight_reps',
  primary_muscle_group: 'chest',
  secondary_muscle_groups: ['triceps', 'shoulders'],
  is_custom: false,
};
