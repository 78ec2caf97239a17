// The Read API v1's six routes over HTTP, each answer checked against its strict contract and its
// headers: on an empty record, a small hand-built one whose every figure is stated, and a large
// imported one. And /openapi.json documents them under their own security scheme.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readApiOperationList } from '../../contracts/read-api.ts';
import type { RecordItem, WorkoutSet } from '../../contracts/record.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { sha256Hex } from '../../services/domain/ids.ts';
import { localDateOf } from '../../services/domain/time.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { generateHevyExport } from '../fixtures/hevy-export.ts';
import { registerPro } from '../support/connect.ts';
import { botToken, pageAll, readApi } from '../support/read-api.ts';
import { inlined } from '../support/openapi.ts';
import { startServer } from '../support/server.ts';
import { referenceStats } from '../support/stats-reference.ts';
import { workoutSet } from '../support/sets.ts';

const set = (position: number, weight: number, reps: number, o: Partial<WorkoutSet> = {}): WorkoutSet =>
  workoutSet(position, { weight_kg: weight, reps, ...o });

test('an empty record: the profile, zero stats, empty lists', async () => {
  // 17 June 2026 is a Wednesday.
  const s = await startServer({ clock: fixedClock('2026-06-17T10:00:00.000Z') });
  try {
    const token = await botToken(s.app, await registerPro(s.app));
    assert.equal(await readApi(s.base, token, 'get_me', '/api/v1/me'), { display_name: 'Ada', unit_preference: 'kg', timezone: 'Europe/London' });
    assert.equal(await readApi(s.base, token, 'get_stats', '/api/v1/stats'), {
      timezone: 'Europe/London',
      as_of: '2026-06-17T10:00:00.000Z',
      this_week: { from: '2026-06-15', to: '2026-06-17', completed_workouts: 0 },
      rolling_30_days: { from: '2026-05-19', to: '2026-06-17', completed_workouts: 0 },
      consecutive_active_weeks: 0,
      streak_is_current: false,
    });
    assert.equal(await readApi(s.base, token, 'list_workouts', '/api/v1/workouts'), { items: [], next_cursor: null });
    assert.equal(await readApi(s.base, token, 'list_saved_workouts', '/api/v1/saved-workouts?limit=10'), { items: [], next_cursor: null });
  } finally {
    await s.close();
  }
});

test('a small record: every route and every figure', async () => {
  const clock = fixedClock('2026-06-01T09:00:00.000Z');
  const s = await startServer({ clock });
  try {
    const athleteId = await registerPro(s.app);
    const athlete = (await s.app.athletes.get(athleteId))!;
    await s.app.athletes.updateProfile(
      athlete.email,
      { ...athlete.profile, display_name: 'Ada L.', unit_preference: 'lbs', timezone: 'Europe/Berlin' },
      { type: 'operator', id: 'test' },
    );
    const token = await botToken(s.app, athleteId);
    const actor = { type: 'athlete' as const, id: athleteId };
    const [squat, run] = [randomUUID(), randomUUID()];
    await s.app.records.change(
      athleteId,
      [
        { op: 'create', kind: 'exercise', item: { id: squat, name: 'Squat', muscle_group: 'legs', tracking_type: 'weight_reps' } },
        { op: 'create', kind: 'exercise', item: { id: run, name: 'Treadmill', muscle_group: null, tracking_type: 'distance' } },
      ],
      actor,
    );
    const workout = (
      id: string,
      title: string,
      started: string | null,
      ended: string,
      exercises: RecordItem<'workout'>['exercises'],
    ): RecordItem<'workout'> => ({
      id,
      title,
      started_at: started,
      ended_at: ended,
      notes: 'felt strong',
      source: null,
      exercises,
    });
    const squats = (sets: WorkoutSet[], order = 0) => ({ exercise_id: squat, exercise_order: order, superset_id: null, notes: null, sets });
    // Two workouts end at the same instant: the id breaks the tie, the larger first.
    const [tieLow, tieHigh] = ['11111111-1111-4111-8111-111111111111', 'ffffffff-ffff-4fff-8fff-ffffffffffff'];
    const first = workout(randomUUID(), 'Legs', '2026-06-08T08:00:00.000Z', '2026-06-08T09:00:00.000Z', [
      squats([set(0, 60, 10, { set_type: 'warmup' }), set(1, 100, 5), set(2, 100, 5), set(3, 110, 5, { completed: false })]),
    ]);
    // Recorded with an offset: answered in UTC.
    const second = workout(randomUUID(), 'Legs again', '2026-06-10T10:00:00+02:00', '2026-06-10T09:15:30.000Z', [
      { exercise_id: run, exercise_order: 1, superset_id: null, notes: null, sets: [workoutSet(0, { distance_metres: 5000, duration_seconds: 1500 })] },
      squats([set(0, 105, 3), set(1, 90, 8), set(2, 70, 12, { set_type: 'drop_set', parent_position: 1 })]),
    ]);
    const tied = (id: string) => workout(id, 'Tied', '2026-06-12T17:00:00.000Z', '2026-06-12T18:00:00.000Z', []);
    await s.app.records.change(
      athleteId,
      [first, second, tied(tieLow), tied(tieHigh)].map((item) => ({ op: 'create' as const, kind: 'workout' as const, item })),
      actor,
    );
    // Logged without a start on Monday 15 June: it counts on the day it was logged.
    clock.set('2026-06-15T12:00:00.000Z');
    const logged = workout(randomUUID(), 'Logged later', null, '2026-06-06T07:00:00.000Z', []);
    await s.app.records.change(athleteId, [{ op: 'create', kind: 'workout', item: logged }], actor);

    const routine = (title: string, exercises: RecordItem<'routine'>['exercises']): RecordItem<'routine'> => ({
      id: randomUUID(),
      title,
      exercises,
      scheduled_dates: [],
    });
    const upper = routine('Upper', [
      { position: 1, exercise_id: run, sets: 1, reps: '20 min', target_rpe: null, rest_seconds: null },
      { position: 0, exercise_id: squat, sets: 3, reps: '8-12', target_rpe: 8, rest_seconds: 120 },
    ]);
    const lower = routine('Lower', [{ position: 0, exercise_id: squat, sets: 5, reps: '5', target_rpe: null, rest_seconds: 180 }]);
    await s.app.records.change(athleteId, [{ op: 'create', kind: 'routine', item: upper }], actor);
    clock.advance(60_000);
    await s.app.records.change(athleteId, [{ op: 'create', kind: 'routine', item: lower }], actor);
    clock.set('2026-06-17T10:00:00.000Z');

    assert.equal(await readApi(s.base, token, 'get_me', '/api/v1/me'), { display_name: 'Ada L.', unit_preference: 'lbs', timezone: 'Europe/Berlin' });
    assert.equal(await readApi(s.base, token, 'get_stats', '/api/v1/stats'), {
      timezone: 'Europe/Berlin',
      as_of: '2026-06-17T10:00:00.000Z',
      this_week: { from: '2026-06-15', to: '2026-06-17', completed_workouts: 1 },
      rolling_30_days: { from: '2026-05-19', to: '2026-06-17', completed_workouts: 5 },
      consecutive_active_weeks: 2,
      streak_is_current: true,
    });

    const all = await readApi(s.base, token, 'list_workouts', '/api/v1/workouts?limit=10');
    assert.equal(
      all.items.map((w) => w.id),
      [tieHigh, tieLow, second.id, first.id, logged.id],
      'newest end first, the larger id first on a tie',
    );
    assert.is(all.next_cursor, null);
    const paged = await pageAll(s.base, token, 'list_workouts', '/api/v1/workouts', 2);
    assert.equal(
      paged.items.map((w) => w.id),
      all.items.map((w) => w.id),
      'pages of 2 walk the same order',
    );
    assert.is(paged.pages, 3);
    assert.equal(all.items[2], {
      id: second.id,
      title: 'Legs again',
      started_at: '2026-06-10T08:00:00.000Z',
      ended_at: '2026-06-10T09:15:30.000Z',
      duration_seconds: 4530,
      exercise_count: 2,
      completed_set_count: 4,
    });
    assert.equal([all.items[4]!.started_at, all.items[4]!.duration_seconds], [null, null]);

    const legs = await readApi(s.base, token, 'get_workout', `/api/v1/workouts/${first.id}`);
    assert.is(legs.completed_set_count, 3, 'the set not completed is not counted');
    assert.equal(
      legs.exercises[0]!.sets.map((x) => [x.position, x.set_type, x.weight_kg, x.reps, x.record_indicators]),
      [
        [0, 'warmup', 60, 10, []],
        [1, 'normal', 100, 5, ['weight', 'reps', 'set_volume', 'estimated_1rm']],
        [2, 'normal', 100, 5, []],
      ],
    );
    const again = await readApi(s.base, token, 'get_workout', `/api/v1/workouts/${second.id}`);
    assert.equal(
      again.exercises.map((e) => [e.name, e.tracking_type, e.muscle_group, e.sets.length]),
      [
        ['Squat', 'weight_reps', 'legs', 3],
        ['Treadmill', 'distance', null, 1],
      ],
      'exercises in the order performed',
    );
    assert.equal(
      again.exercises[0]!.sets.map((x) => x.record_indicators),
      [['weight'], [], ['reps', 'set_volume']],
    );
    assert.equal(again.exercises[1]!.sets[0], {
      position: 0,
      set_number: 1,
      set_type: 'normal',
      weight_kg: null,
      reps: null,
      rpe: null,
      duration_seconds: 1500,
      distance_metres: 5000,
      incline_percent: null,
      record_indicators: [],
    });
    assert.is(again.started_at, '2026-06-10T08:00:00.000Z');
    assert.is(
      again.completed_set_count,
      again.exercises.reduce((n, e) => n + e.sets.length, 0),
    );

    const saved = await readApi(s.base, token, 'list_saved_workouts', '/api/v1/saved-workouts');
    assert.equal(
      saved.items.map((r) => [r.title, r.exercise_count]),
      [
        ['Lower', 1],
        ['Upper', 2],
      ],
      'most recently changed first',
    );
    assert.equal(await readApi(s.base, token, 'get_saved_workout', `/api/v1/saved-workouts/${upper.id}`), {
      id: upper.id,
      title: 'Upper',
      exercise_count: 2,
      updated_at: '2026-06-15T12:00:00.000Z',
      exercises: [
        { exercise_id: squat, name: 'Squat', muscle_group: 'legs', tracking_type: 'weight_reps', sets: 3, reps: '8-12', rest_seconds: 120 },
        { exercise_id: run, name: 'Treadmill', muscle_group: null, tracking_type: 'distance', sets: 1, reps: '20 min', rest_seconds: null },
      ],
    });
  } finally {
    await s.close();
  }
});

test('a large imported record: every route answers its contract; lists walk everything once, newest first', async () => {
  // A fixed clock refills no quota: enough units for every read below.
  const s = await startServer({ clock: fixedClock('2024-01-03T12:00:00.000Z'), env: { READ_API_QUOTA_UNITS: '100000' } });
  try {
    const athleteId = await registerPro(s.app);
    const token = await botToken(s.app, athleteId);
    const csv = generateHevyExport({ workouts: 450, seed: 21, startDate: '2021-01-04' });
    const workouts = parseHevy(csv, { timezone: 'Europe/London' });
    await s.app.records.import(athleteId, { app: 'hevy', file_name: 'hevy.csv', file_sha256: sha256Hex(csv), workouts }, { type: 'import', id: 'test' });
    const exercises = (await s.app.reads.dump('exercises')).map((r) => r.doc.id);
    const routines = Array.from(
      { length: 12 },
      (_, i): RecordItem<'routine'> => ({
        id: randomUUID(),
        title: `Plan ${i}`,
        exercises: exercises
          .slice(i % 3, (i % 3) + 4)
          .map((exercise_id, position) => ({ exercise_id, position, sets: 3, reps: '5', target_rpe: null, rest_seconds: 90 })),
        scheduled_dates: [],
      }),
    );
    await s.app.records.change(
      athleteId,
      routines.map((item) => ({ op: 'create' as const, kind: 'routine' as const, item })),
      { type: 'athlete', id: athleteId },
    );

    const stats = await readApi(s.base, token, 'get_stats', '/api/v1/stats');
    const expected = referenceStats(
      workouts.map((w) => localDateOf(w.started_at!, 'Europe/London')),
      '2024-01-03',
    );
    assert.equal(
      [stats.this_week.completed_workouts, stats.rolling_30_days.completed_workouts, stats.consecutive_active_weeks, stats.streak_is_current],
      [expected.thisWeek, expected.last30Days, expected.weeks, expected.current],
    );
    assert.ok(expected.last30Days > 5 && expected.weeks > 5, `the history reaches today (${JSON.stringify(expected)})`);

    const { items, pages } = await pageAll(s.base, token, 'list_workouts', '/api/v1/workouts', 10);
    assert.is(pages, 45);
    assert.is(new Set(items.map((w) => w.id)).size, 450, 'every workout, once');
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1]!, items[i]!];
      assert.ok(a.ended_at > b.ended_at || (a.ended_at === b.ended_at && a.id > b.id), `newest first at ${i}`);
    }
    const latest = Math.max(...workouts.map((w) => Date.parse(w.ended_at)));
    assert.is(items[0]!.ended_at, new Date(latest).toISOString());

    let labelled = 0;
    for (const summary of items) {
      const detail = await readApi(s.base, token, 'get_workout', `/api/v1/workouts/${summary.id}`);
      const { exercises: _e, ...rest } = detail;
      assert.equal(rest, summary, 'the detail starts with the summary');
      labelled += detail.exercises.flatMap((e) => e.sets).filter((x) => x.record_indicators.length > 0).length;
    }
    assert.ok(labelled > 50, `three years of training set records (${labelled})`);

    const saved = await pageAll(s.base, token, 'list_saved_workouts', '/api/v1/saved-workouts', 5);
    assert.is(saved.pages, 3);
    assert.equal(new Set(saved.items.map((r) => r.id)), new Set(routines.map((r) => r.id)));
    for (const r of saved.items) {
      const detail = await readApi(s.base, token, 'get_saved_workout', `/api/v1/saved-workouts/${r.id}`);
      assert.is(detail.exercises.length, 4);
    }
  } finally {
    await s.close();
  }
});

test('/openapi.json documents the six routes under botBearer, with their statuses; Agent Access keeps its OAuth', async () => {
  const s = await startServer({ env: { READ_API_QUOTA_UNITS: '120' } });
  try {
    const raw = (await (await fetch(`${s.base}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            security: unknown;
            responses: Record<string, { content?: { 'application/json': { schema: { $ref: string } } } }>;
            parameters: Array<{ name: string; in: string }>;
            'x-quota-weight': number;
          }
        >
      >;
      components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
      info: { description: string };
    };
    const result = await new Validator().validate(raw as unknown as Parameters<Validator['validate']>[0]);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
    const doc = inlined(raw);
    assert.equal(doc.components.securitySchemes.botBearer, { ...doc.components.securitySchemes.botBearer, type: 'http', scheme: 'bearer' });
    assert.match(doc.info.description, 'Each bot token may spend 120 quota units per 60 seconds');
    for (const op of readApiOperationList) {
      const item = doc.paths[op.path]!;
      assert.equal(Object.keys(item), ['get'], op.path);
      const get = item.get!;
      assert.is(get.operationId, op.operationId);
      assert.equal(get.security, [{ botBearer: [] }]);
      assert.is(get['x-quota-weight'], op.weight);
      assert.equal(Object.keys(get.responses), ['200', '400', '401', '404', '413', '429', '503']);
      for (const status of ['400', '401', '404', '413', '429', '503'])
        assert.is(get.responses[status]!.content!['application/json'].schema.$ref, '#/components/schemas/ReadApiError');
      assert.equal(
        get.parameters.map((p) => `${p.in} ${p.name}`),
        op.path.endsWith('{id}') ? ['path id'] : op.operationId.startsWith('list_') ? ['query limit', 'query cursor'] : [],
      );
    }
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/v1/')) for (const o of Object.values(item)) assert.ok(JSON.stringify(o.security).includes('agentAccessOAuth'), path);
    }
  } finally {
    await s.close();
  }
});

test("docs/api.md's table of Read API routes is the operations table's: path, twin and quota weight", async () => {
  const readme = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  for (const op of readApiOperationList) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${op.path}\` |`));
    assert.ok(row?.includes(`| \`${op.twin}\` |`) && row.trimEnd().endsWith(`| ${op.weight} |`), `docs/api.md row for ${op.path}: ${row}`);
  }
});

test.run();
