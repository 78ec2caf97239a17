import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { z } from 'zod';
import {
  READ_API_ERROR_CODES,
  me,
  meResponse,
  page,
  readApiError,
  readApiIdParams,
  readApiListQuery,
  readApiOperationList,
  readApiOperations,
  savedWorkoutDetail,
  savedWorkoutListResponse,
  savedWorkoutSummary,
  stats,
  statsResponse,
  workoutDetail,
  workoutListResponse,
  workoutResponse,
  workoutSummary,
} from '../../contracts/read-api.ts';

function ok(schema: z.ZodType, value: unknown): void {
  const r = schema.safeParse(value);
  assert.ok(r.success, r.success ? '' : JSON.stringify(r.error.issues, null, 1));
}

function refused(schema: z.ZodType, value: unknown, path?: (string | number)[]): void {
  const r = schema.safeParse(value);
  assert.not.ok(r.success, 'expected the value to be refused');
  if (path && !r.success) {
    const paths = r.error.issues.map((i) => JSON.stringify(i.path));
    assert.ok(paths.includes(JSON.stringify(path)), `expected an issue at ${JSON.stringify(path)}, got ${paths}`);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a copy of a fixture of any shape, changed anywhere
function variant<T>(base: T, change: (copy: any) => void): T {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

const T = '2024-05-06T10:00:00Z';
const T_END = '2024-05-06T11:15:00.000Z';

const meFixture = { display_name: 'Sam', unit_preference: 'kg', timezone: 'Europe/London' };

const statsFixture = {
  timezone: 'Europe/London',
  as_of: T,
  // 6 May 2024 is a Monday: this week so far is that one day.
  this_week: { from: '2024-05-06', to: '2024-05-06', completed_workouts: 1 },
  rolling_30_days: { from: '2024-04-07', to: '2024-05-06', completed_workouts: 9 },
  consecutive_active_weeks: 4,
  streak_is_current: true,
};

const summaryFixture = {
  id: 'w_01HXYZ',
  title: 'Push day',
  started_at: T,
  ended_at: T_END,
  duration_seconds: 4500,
  exercise_count: 1,
  completed_set_count: 2,
};

const setFixture = {
  position: 0,
  set_number: 1,
  set_type: 'normal',
  weight_kg: 100,
  reps: 5,
  rpe: null,
  duration_seconds: null,
  distance_metres: null,
  incline_percent: null,
  record_indicators: ['weight', 'estimated_1rm'],
};

const exerciseFixture = {
  exercise_id: 'ex_bench',
  name: 'Bench Press',
  muscle_group: 'chest',
  tracking_type: 'weight_reps',
  superset_id: null,
  sets: [setFixture, { ...setFixture, position: 1, set_number: 2, record_indicators: [] }],
};

const detailFixture = { ...summaryFixture, exercises: [exerciseFixture] };

const savedSummaryFixture = { id: 'r_1', title: 'Upper A', exercise_count: 1, updated_at: T };
const savedExerciseFixture = {
  exercise_id: 'ex_bench',
  name: 'Bench Press',
  muscle_group: null,
  tracking_type: null,
  sets: 3,
  reps: '8-12',
  rest_seconds: 90,
};
const savedDetailFixture = { ...savedSummaryFixture, exercises: [savedExerciseFixture] };

const wrap = (data: unknown) => ({ data, request_id: 'req_1' });

test('every route response accepts a full valid example', () => {
  ok(readApiOperations.get_me.response, wrap(meFixture));
  ok(readApiOperations.get_stats.response, wrap(statsFixture));
  ok(readApiOperations.list_workouts.response, wrap({ items: [summaryFixture], next_cursor: 'abc' }));
  ok(readApiOperations.get_workout.response, wrap(detailFixture));
  ok(readApiOperations.list_saved_workouts.response, wrap({ items: [savedSummaryFixture], next_cursor: null }));
  ok(readApiOperations.get_saved_workout.response, wrap(savedDetailFixture));
});

test('the operations table: six GET routes under /api/v1, lists take limit and cursor, details an id', () => {
  assert.equal(
    readApiOperationList.map((op) => op.path),
    ['/api/v1/me', '/api/v1/stats', '/api/v1/workouts', '/api/v1/workouts/{id}', '/api/v1/saved-workouts', '/api/v1/saved-workouts/{id}'],
  );
  for (const op of readApiOperationList) {
    const params = Object.keys(op.input.shape).sort();
    const expected = op.path.endsWith('{id}') ? ['id'] : op.operationId.startsWith('list_') ? ['cursor', 'limit'] : [];
    assert.equal(params, expected, op.operationId);
    assert.ok(op.weight >= 1, op.operationId);
  }
});

test('success envelope: exactly data and request_id', () => {
  refused(meResponse, { data: meFixture }, ['request_id']);
  refused(meResponse, { request_id: 'req_1' }, ['data']);
  refused(meResponse, { ...wrap(meFixture), schema_version: 'v1' });
  refused(meResponse, { ...wrap(meFixture), request_id: '' }, ['request_id']);
});

test('list data: items and next_cursor, at most 10 items, cursor 1-4096', () => {
  const list = (items: unknown[], next_cursor: unknown = null) => wrap({ items, next_cursor });
  ok(workoutListResponse, list([]));
  ok(workoutListResponse, list(Array(10).fill(summaryFixture)));
  refused(workoutListResponse, list(Array(11).fill(summaryFixture)), ['data', 'items']);
  ok(workoutListResponse, list([], 'c'.repeat(4096)));
  refused(workoutListResponse, list([], 'c'.repeat(4097)), ['data', 'next_cursor']);
  refused(workoutListResponse, list([], ''), ['data', 'next_cursor']);
  refused(workoutListResponse, wrap({ items: [] }), ['data', 'next_cursor']);
  refused(savedWorkoutListResponse, wrap({ items: [], next_cursor: null, total: 0 }));
  ok(page(me), { items: [meFixture], next_cursor: null });
});

test('list query: limit 1-10 (default 5), cursor 1-4096, nothing else', () => {
  assert.equal(readApiListQuery.parse({}), { limit: 5, cursor: null });
  assert.is(readApiListQuery.parse({ limit: '10' }).limit, 10);
  assert.is(readApiListQuery.parse({ limit: 1 }).limit, 1);
  for (const bad of [0, 11, '0', '11', 'ten', '2.5', '']) refused(readApiListQuery, { limit: bad }, ['limit']);
  ok(readApiListQuery, { cursor: 'c'.repeat(4096) });
  refused(readApiListQuery, { cursor: 'c'.repeat(4097) }, ['cursor']);
  refused(readApiListQuery, { cursor: '' }, ['cursor']);
  refused(readApiListQuery, { from: '2024-05-01' });
  ok(readApiIdParams, { id: 'w_01HXYZ' });
  refused(readApiIdParams, { id: '' }, ['id']);
});

test('me: display name, unit preference and a valid timezone only', () => {
  ok(me, meFixture);
  refused(me, { ...meFixture, unit_preference: 'stone' }, ['unit_preference']);
  refused(me, { ...meFixture, timezone: 'Nowhere/Place' }, ['timezone']);
  refused(me, { ...meFixture, display_name: '' }, ['display_name']);
  refused(me, { ...meFixture, email: 'sam@example.com' });
});

test('stats: this week runs from its Monday to today, the rolling window is the 30 days ending today', () => {
  ok(stats, statsFixture);
  ok(stats, { ...statsFixture, consecutive_active_weeks: 0, streak_is_current: false });
  const sunday = {
    ...statsFixture,
    this_week: { from: '2024-05-06', to: '2024-05-12', completed_workouts: 1 },
    rolling_30_days: { from: '2024-04-13', to: '2024-05-12', completed_workouts: 9 },
  };
  ok(stats, sunday);
  refused(
    stats,
    variant(statsFixture, (c) => (c.this_week = { from: '2024-05-07', to: '2024-05-07', completed_workouts: 0 })),
    ['this_week'],
  );
  refused(
    stats,
    variant(statsFixture, (c) => (c.this_week.to = '2024-05-07')),
    ['this_week'],
  );
  refused(
    stats,
    variant(sunday, (c) => (c.this_week.from = '2024-04-29')),
    ['this_week'],
  );
  refused(
    stats,
    variant(statsFixture, (c) => (c.this_week.completed_workouts = 10)),
    ['this_week', 'completed_workouts'],
  );
  refused(
    stats,
    variant(statsFixture, (c) => (c.rolling_30_days.from = '2024-04-06')),
    ['rolling_30_days'],
  );
  refused(stats, { ...statsFixture, consecutive_active_weeks: 0, streak_is_current: true }, ['streak_is_current']);
  refused(stats, { ...statsFixture, consecutive_active_weeks: -1 }, ['consecutive_active_weeks']);
  refused(
    stats,
    variant(statsFixture, (c) => (c.this_week.completed_workouts = -1)),
    ['this_week', 'completed_workouts'],
  );
  refused(stats, { ...statsFixture, as_of: '2024-05-06T12:00:00+02:00' }, ['as_of']);
  refused(stats, { ...statsFixture, total_volume_kg: 1 });
});

test('workout summary: UTC timestamps, counts >= 0, opaque id', () => {
  ok(workoutSummary, summaryFixture);
  ok(workoutSummary, { ...summaryFixture, started_at: null, duration_seconds: null });
  refused(workoutSummary, { ...summaryFixture, ended_at: '2024-05-06T11:15:00+01:00' }, ['ended_at']);
  refused(workoutSummary, { ...summaryFixture, id: '' }, ['id']);
  refused(workoutSummary, { ...summaryFixture, title: 't'.repeat(201) }, ['title']);
  refused(workoutSummary, { ...summaryFixture, completed_set_count: -1 }, ['completed_set_count']);
  refused(workoutSummary, { ...summaryFixture, duration_seconds: 1.5 }, ['duration_seconds']);
  refused(workoutSummary, { ...summaryFixture, revision: 1 });
});

test('workout detail: record indicators from the fixed vocabulary, no repeats', () => {
  ok(workoutDetail, detailFixture);
  // biome-ignore lint/suspicious/noExplicitAny: a part of the fixture, changed anywhere
  const s = (change: (set: any) => void) => variant(detailFixture, (c) => change(c.exercises[0].sets[0]));
  const at = (...p: (string | number)[]) => ['exercises', 0, 'sets', 0, ...p];
  ok(
    workoutDetail,
    s((x) => (x.record_indicators = ['weight', 'reps', 'set_volume', 'estimated_1rm'])),
  );
  refused(
    workoutDetail,
    s((x) => (x.record_indicators = ['volume'])),
    at('record_indicators', 0),
  );
  refused(
    workoutDetail,
    s((x) => (x.record_indicators = ['reps', 'reps'])),
    at('record_indicators'),
  );
  refused(
    workoutDetail,
    s((x) => delete x.record_indicators),
    at('record_indicators'),
  );
  refused(
    workoutDetail,
    s((x) => (x.set_type = 'amrap')),
    at('set_type'),
  );
  refused(
    workoutDetail,
    s((x) => (x.set_number = 0)),
    at('set_number'),
  );
  refused(
    workoutDetail,
    s((x) => (x.completed = true)),
  );
  refused(workoutResponse, wrap({ ...detailFixture, exercises: [{ ...exerciseFixture, tracking_type: 'reps' }] }));
});

test('workout detail: at most 200 sets per exercise, muscle group at most 100 characters', () => {
  const withSets = (n: number) => ({
    ...detailFixture,
    exercises: [{ ...exerciseFixture, sets: Array.from({ length: n }, (_, i) => ({ ...setFixture, position: i, set_number: i + 1 })) }],
  });
  ok(workoutDetail, withSets(200));
  refused(workoutDetail, withSets(201), ['exercises', 0, 'sets']);
  ok(
    workoutDetail,
    variant(detailFixture, (c) => (c.exercises[0].muscle_group = 'm'.repeat(100))),
  );
  refused(
    workoutDetail,
    variant(detailFixture, (c) => (c.exercises[0].muscle_group = 'm'.repeat(101))),
  );
});

test('saved workout: at most 50 exercises, sets 1-20, reps text 1-32, count matches', () => {
  ok(savedWorkoutSummary, savedSummaryFixture);
  refused(savedWorkoutSummary, { ...savedSummaryFixture, exercises: [] });
  ok(savedWorkoutDetail, savedDetailFixture);
  const withExercises = (n: number) => ({ ...savedDetailFixture, exercise_count: n, exercises: Array(n).fill(savedExerciseFixture) });
  ok(savedWorkoutDetail, withExercises(50));
  refused(savedWorkoutDetail, withExercises(51), ['exercises']);
  refused(savedWorkoutDetail, { ...savedDetailFixture, exercise_count: 3 }, ['exercise_count']);
  const ex = (change: Record<string, unknown>) => ({ ...savedDetailFixture, exercises: [{ ...savedExerciseFixture, ...change }] });
  ok(savedWorkoutDetail, ex({ sets: 1, reps: '5' }));
  ok(savedWorkoutDetail, ex({ sets: 20, reps: 'r'.repeat(32), rest_seconds: null, tracking_type: 'distance' }));
  refused(savedWorkoutDetail, ex({ sets: 0 }), ['exercises', 0, 'sets']);
  refused(savedWorkoutDetail, ex({ sets: 21 }), ['exercises', 0, 'sets']);
  refused(savedWorkoutDetail, ex({ reps: '' }), ['exercises', 0, 'reps']);
  refused(savedWorkoutDetail, ex({ reps: 'r'.repeat(33) }), ['exercises', 0, 'reps']);
  refused(savedWorkoutDetail, ex({ rest_seconds: -1 }), ['exercises', 0, 'rest_seconds']);
  refused(savedWorkoutDetail, ex({ notes: 'x' }));
});

test('error body: documented codes, message and request_id, nothing else', () => {
  for (const code of READ_API_ERROR_CODES) {
    ok(readApiError, { error: { code, message: 'Nope.', request_id: 'req_1' } });
  }
  const body = { error: { code: 'not_found', message: 'No such workout.', request_id: 'req_1' } };
  refused(
    readApiError,
    variant(body, (c) => (c.error.code = 'insufficient_scope')),
    ['error', 'code'],
  );
  refused(
    readApiError,
    variant(body, (c) => delete c.error.request_id),
    ['error', 'request_id'],
  );
  refused(
    readApiError,
    variant(body, (c) => (c.error.message = '')),
    ['error', 'message'],
  );
  refused(readApiError, { ...body, request_id: 'req_1' });
  refused(statsResponse, body);
});

test.run();
