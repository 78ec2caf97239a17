import { test } from 'uvu';
import { operationList } from '../../contracts/operations.ts';
import { openApiDocument } from '../../services/http/openapi.ts';
import { inlined } from '../support/openapi.ts';
import * as assert from 'uvu/assert';
import type { z } from 'zod';
import {
  AGENT_ACCESS_ERROR_CODES,
  AGENT_ACCESS_ERROR_STATUS,
  accessContext,
  agentAccessData,
  agentAccessError,
  agentAccessOperationIds,
  agentAccessOperations,
  agentAccessResponses,
  bodyMeasurement,
  dailyNutritionSummary,
  dateWindow,
  derivedMetricMetadata,
  envelope,
  exerciseHistory,
  getAccessContextResponse,
  getCompletedWorkoutResponse,
  goal,
  listMealsResponse,
  listQuery,
  meal,
  pageQuery,
  recoveryCheckins,
  routineDetail,
  routineListItem,
  textWrapper,
  trainingSnapshot,
  units,
  windowDays,
  workoutDetail,
  workoutSummary,
  type GetTrainingSnapshotResponse,
  type ListBodyMeasurementsResponse,
  type ListMealsResponse,
  type GetAccessContextResponse,
} from '../../contracts/agent-access.ts';

// ---------------------------------------------------------------------------------------------
// helpers and fixtures

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const T = '2024-05-06T10:00:00Z';
const T_END = '2024-05-06T11:15:00Z';
const text = (value: string) => ({ value, handling: 'untrusted_record_text' });

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

/** Parses a variant of a fixture: `change` edits a deep copy in place. */
// biome-ignore lint/suspicious/noExplicitAny: a copy of a fixture of any shape, changed anywhere
function variant<T>(base: T, change: (copy: any) => void): T {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}

const unitsFixture = {
  canonical: { mass: 'kg', length: 'metres', duration: 'seconds' },
  unit_preference: 'lbs',
  height_unit_preference: 'ft_in',
  bodyweight_unit_preference: 'stone',
};

const metadataFixture = {
  provenance: 'derived',
  calculation_version: 'weekly-count.v1',
  computed_at: T,
  window: { from: '2024-05-06', to: T },
  sample_count: 3,
};

const accessContextFixture = {
  grant_id: id(1),
  scopes: ['training', 'recovery'],
  record: { timezone: 'Europe/Berlin', units: unitsFixture },
  constraints: { read_only: true, background_sync: false, maximum_page_size: 10, maximum_range_days: 90 },
};

const goalFixture = {
  id: id(2),
  goal_type: 'target_1rm',
  status: 'active',
  exercise_id: id(3),
  target_value: 225,
  target_unit: 'lbs',
  canonical_target_value: 102.058,
  canonical_target_unit: 'kg',
  achieved_at: null,
  created_at: T,
  updated_at: T,
  provenance: 'prescribed',
};

const snapshotFixture = {
  summary: {
    workouts_this_week: { value: 2, metadata: metadataFixture },
    workouts_last_30_days: { value: 9, metadata: metadataFixture },
    consecutive_active_weeks: { value: 0, metadata: metadataFixture },
    streak_is_current: { value: false, metadata: metadataFixture },
  },
  exercise_frequency: [{ exercise_id: id(3), name: text('Bench Press'), completed_sessions: 4, achieved_sets: 12, metadata: metadataFixture }],
  goals: [goalFixture],
  recent_feedback: [
    {
      workout_id: id(4),
      difficulty: 'harder_than_expected',
      next_time_intent: 'review',
      recorded_at: T,
      provenance: 'self_reported',
    },
  ],
};

const durationFixture = {
  seconds: 4500,
  basis: 'recorded_start',
  provenance: 'derived',
  calculation_version: 'duration.v1',
  computed_at: T_END,
  baseline: 'recorded_start_to_end',
  sample_count: 2,
};

const summaryFixture = {
  id: id(4),
  title: text('Push day'),
  started_at: T,
  ended_at: T_END,
  created_at: T_END,
  updated_at: T_END,
  revision: 1,
  duration: durationFixture,
  provenance: 'recorded',
};

const setFixture = {
  position: 0,
  set_number: 1,
  set_type: 'normal',
  parent_position: null,
  structure_version: 1,
  weight_kg: 100,
  reps: 5,
  rpe: 8.5,
  target_rpe: 8,
  rpe_provenance: 'self_reported',
  target_rpe_provenance: 'prescribed',
  duration_seconds: null,
  distance_metres: null,
  incline_percent: null,
  historical_record_at_completion: {
    indicators: ['weight', 'estimated_1rm'],
    metadata: {
      provenance: 'derived',
      calculation_version: 'historical-record-at-completion.v1',
      computed_at: T_END,
      baseline: 'eligible_prior_sets_before_workout_completion',
      sample_count: 14,
    },
  },
  provenance: 'recorded',
};

const sets = (n: number) => Array.from({ length: n }, (_, i) => ({ ...setFixture, position: i, set_number: i + 1 }));

const exerciseEntryFixture = {
  exercise_id: id(3),
  name: text('Bench Press'),
  muscle_group: 'chest',
  tracking_type: 'weight_reps',
  exercise_order: 0,
  superset_id: null,
  sets: sets(2),
};

const detailFixture = {
  ...summaryFixture,
  achieved_set_count: 2,
  feedback: { difficulty: 'as_expected', next_time_intent: 'keep', recorded_at: T_END, provenance: 'self_reported' },
  exercises: [exerciseEntryFixture, { ...exerciseEntryFixture, exercise_order: 1, superset_id: id(9), sets: [] }],
};

const historySet = {
  position: 0,
  set_number: 1,
  weight_kg: 100,
  reps: 5,
  rpe: null,
  rpe_provenance: 'self_reported',
  duration_seconds: null,
  distance_metres: null,
  incline_percent: null,
  provenance: 'recorded',
};

const historyItem = { workout_id: id(4), ended_at: T_END, sets: [historySet] };

const historyFixture = {
  window: { from: '2024-04-01', to: '2024-05-06' },
  exercise: { id: id(3), name: text('Bench Press') },
  items: [historyItem],
  next_cursor: 'opaque-cursor',
};

const routineListItemFixture = {
  id: id(5),
  revision: 3,
  title: text('Upper A'),
  exercise_count: 1,
  updated_at: T,
  provenance: 'prescribed',
};

const routineExerciseFixture = {
  position: 0,
  exercise_id: id(3),
  name: text('Bench Press'),
  muscle_group: null,
  tracking_type: null,
  sets: 3,
  reps: '8-12',
  target_rpe: null,
  rest_seconds: 120,
  provenance: 'prescribed',
};

const routineDetailFixture = { ...routineListItemFixture, exercises: [routineExerciseFixture] };
const routineWith = (n: number) => ({
  ...routineDetailFixture,
  exercise_count: n,
  exercises: Array.from({ length: n }, (_, i) => ({ ...routineExerciseFixture, position: i })),
});

const checkinFixture = {
  date: '2024-05-06',
  sleep_quality: 4,
  energy: null,
  soreness: 5,
  stress: 1,
  updated_at: T,
  provenance: 'self_reported',
};

const recoveryFixture = {
  window: { from: '2024-05-01', to: '2024-05-06' },
  scale: { minimum: 1, maximum: 5, higher_is_better: true, soreness_five_means: 'no_soreness' },
  items: [checkinFixture],
  next_cursor: null,
};

const mealFixture = {
  id: id(6),
  eaten_at: T,
  local_date: '2024-05-06',
  name: text('Oats with milk'),
  calories_kcal: 450,
  protein_g: 20,
  carbohydrate_g: 60,
  fat_g: null,
  updated_at: T,
  revision: 1,
  provenance: 'self_reported',
};

const dayMetadata = { ...metadataFixture, calculation_version: 'daily-nutrition.v1', window: { from: '2024-05-06', to: '2024-05-06' } };
const dailyFixture = {
  date: '2024-05-06',
  meal_count: 2,
  calories_kcal: { value: 900, metadata: { ...dayMetadata, sample_count: 2 } },
  protein_g: { value: 40, metadata: { ...dayMetadata, sample_count: 2 } },
  carbohydrate_g: { value: 60, metadata: { ...dayMetadata, sample_count: 1 } },
  fat_g: { value: null, metadata: { ...dayMetadata, sample_count: 0 } },
};

const measurementFixture = {
  id: id(7),
  measured_at: T,
  metric: 'bodyweight',
  value: 82.5,
  unit: 'kg',
  revision: 2,
  updated_at: T,
  provenance: 'self_reported',
};

const window = { from: '2024-05-01', to: '2024-05-06' };

const oats = { eaten_at: T, name: 'Oats', calories_kcal: 350, protein_g: null, carbohydrate_g: null, fat_g: null };
const proposalFixture = {
  command_id: id(40),
  version: 'agent-access-write.v1',
  status: 'prepared',
  client: { client_id: 'https://client.example/metadata.json', name: 'Coach' },
  prepared_at: T,
  expires_at: T,
  decided_at: null,
  approval_url: `https://repledger.example/proposals/${id(40)}`,
  changes: [{ index: 0, op: 'create', kind: 'meal', id: id(41), area: 'nutrition', base_revision: null, summary: 'Add meal "Oats"' }],
  actions: [{ op: 'create', kind: 'meal', id: id(41), base_revision: null, ref: null, record: oats }],
  receipt: null,
  conflict: null,
  undone_at: null,
  reason: null,
};

const writeContextFixture = {
  version: 'agent-access-write.v1',
  grant_id: id(42),
  permissions: ['nutrition:write'],
  read_scopes: ['nutrition'],
  permissions_url: 'https://repledger.example/connections/x/write-permissions/request?permissions=training%3Awrite',
  kinds: [{ kind: 'meal', areas: ['nutrition'], operations: ['create', 'update', 'delete'], record_schema: { type: 'object' } }],
  goal_areas: {
    target_1rm: 'training',
    target_bodyweight: 'body_measurements',
    weekly_session_count: 'training',
    weekly_volume: 'training',
    daily_calories: 'nutrition',
    daily_protein: 'nutrition',
  },
  limits: {
    maximum_changes: 50,
    proposal_expiry_minutes: 30,
    scheduling_horizon_days: 90,
    undo_window_days: 30,
    maximum_pending_proposals: 10,
    maximum_proposal_bytes_per_day: 4_194_304,
  },
  record: { timezone: 'Europe/Berlin', today: '2024-05-06', latest_scheduling_date: '2024-08-04' },
  writes_paused: false,
};

/** A valid `data` for every operation. */
const dataFixtures: Record<keyof typeof agentAccessOperations, unknown> = {
  get_access_context: accessContextFixture,
  get_training_snapshot: snapshotFixture,
  list_completed_workouts: { window, items: [summaryFixture], next_cursor: null },
  get_completed_workout: { workout: detailFixture },
  get_exercise_history: historyFixture,
  list_exercises: {
    items: [{ id: id(3), name: text('Bench Press'), muscle_group: 'chest', tracking_type: 'weight_reps', session_count: 4, last_done_at: T }],
    next_cursor: 'c',
  },
  get_personal_records: {
    items: [
      {
        exercise: { id: id(3), name: text('Bench Press') },
        records: {
          weight: { value: 100, date: '2024-05-06', workout_id: id(4), set_at: T, set_number: 2, weight_kg: 100, reps: 3 },
          reps: null,
          set_volume: null,
          estimated_1rm: null,
        },
        metadata: metadataFixture,
      },
    ],
    next_cursor: null,
  },
  list_saved_routines: { items: [routineListItemFixture], next_cursor: 'c' },
  get_saved_routine: { routine: routineDetailFixture },
  list_recovery_checkins: recoveryFixture,
  list_meals: { window, items: [mealFixture], next_cursor: null },
  list_daily_nutrition: { window, items: [dailyFixture], next_cursor: null },
  list_body_measurements: { window, items: [measurementFixture], next_cursor: null },
  get_write_context: writeContextFixture,
  get_write_record: { item: { kind: 'meal', id: id(41), revision: 1, area: 'nutrition', created_at: T, updated_at: T, record: oats } },
  prepare_write_proposal: { proposal: proposalFixture },
  get_write_proposal: { proposal: proposalFixture },
};

function envelopeFixture(operation: keyof typeof agentAccessOperations) {
  return {
    schema_version: 'agent-access.v1',
    request_id: id(100),
    operation,
    as_of: T,
    timezone: 'Europe/Berlin',
    units: unitsFixture,
    scope: agentAccessOperations[operation].scope,
    data: dataFixtures[operation],
  };
}

// ---------------------------------------------------------------------------------------------
// 2.1 envelope

test('every operation has a response schema that accepts a full valid example', () => {
  for (const op of agentAccessOperationIds) {
    ok(agentAccessResponses[op], envelopeFixture(op));
    ok(agentAccessData[op], dataFixtures[op]);
  }
});

test('envelope has exactly eight fields: an extra or a missing one is refused', () => {
  const base = envelopeFixture('get_training_snapshot');
  const response = agentAccessResponses.get_training_snapshot;
  refused(response, { ...base, extra: 1 });
  for (const field of Object.keys(base)) {
    refused(
      response,
      variant(base, (c) => delete c[field]),
      [field],
    );
  }
});

test('envelope refuses a wrong schema_version, a foreign operation and a non-uuid request_id', () => {
  const base = envelopeFixture('list_recovery_checkins');
  const response = agentAccessResponses.list_recovery_checkins;
  refused(response, { ...base, schema_version: 'agent-access.v2' }, ['schema_version']);
  refused(response, { ...base, operation: 'list_completed_workouts' }, ['operation']);
  refused(response, { ...base, request_id: 'req-1' }, ['request_id']);
  refused(response, { ...base, as_of: '2024-05-06' }, ['as_of']);
});

test('envelope scope: null for get_access_context and the write operations (checked per item and action), else the scope of the operation', () => {
  ok(getAccessContextResponse, envelopeFixture('get_access_context'));
  refused(getAccessContextResponse, { ...envelopeFixture('get_access_context'), scope: 'training' }, ['scope']);
  refused(getCompletedWorkoutResponse, { ...envelopeFixture('get_completed_workout'), scope: null }, ['scope']);
  refused(getCompletedWorkoutResponse, { ...envelopeFixture('get_completed_workout'), scope: 'recovery' }, ['scope']);
  refused(agentAccessResponses.list_recovery_checkins, { ...envelopeFixture('list_recovery_checkins'), scope: 'training' }, ['scope']);
  ok(listMealsResponse, { ...envelopeFixture('list_meals'), scope: 'nutrition' });
  refused(listMealsResponse, { ...envelopeFixture('list_meals'), scope: 'body_measurements' }, ['scope']);
  // Every operation's envelope takes its own scope from the table, and no other.
  for (const op of agentAccessOperationIds) {
    const own = agentAccessOperations[op].scope;
    for (const scope of [null, 'training', 'recovery', 'nutrition', 'body_measurements']) {
      const envelope = { ...envelopeFixture(op), scope };
      if (scope === own) ok(agentAccessResponses[op], envelope);
      else refused(agentAccessResponses[op], envelope, ['scope']);
    }
  }
});

test('envelope timezone is 1-100 characters and a real time zone', () => {
  const base = envelopeFixture('get_access_context');
  refused(getAccessContextResponse, { ...base, timezone: '' }, ['timezone']);
  refused(getAccessContextResponse, { ...base, timezone: `Europe/${'x'.repeat(94)}` }, ['timezone']);
  refused(getAccessContextResponse, { ...base, timezone: 'Mars/Olympus' }, ['timezone']);
  ok(getAccessContextResponse, { ...base, timezone: 'America/Argentina/ComodRivadavia' });
});

test('envelope() builds a schema for a custom data shape with the fixed scope of the operation', () => {
  const schema = envelope('list_body_measurements', agentAccessData.list_body_measurements);
  ok(schema, envelopeFixture('list_body_measurements'));
  refused(schema, { ...envelopeFixture('list_body_measurements'), data: dataFixtures.list_meals }, ['data', 'items', 0]);
});

// Compile-time: the scope type is the operation's literal scope.
const _scopes: [GetAccessContextResponse['scope'], GetTrainingSnapshotResponse['scope'], ListMealsResponse['scope'], ListBodyMeasurementsResponse['scope']] = [
  null,
  'training',
  'nutrition',
  'body_measurements',
];
void _scopes;

// ---------------------------------------------------------------------------------------------
// 2.2 units, 2.3 wrappers

test('units: all four fields, canonical units fixed', () => {
  ok(units, unitsFixture);
  refused(
    units,
    variant(unitsFixture, (c) => (c.canonical.mass = 'lbs')),
    ['canonical', 'mass'],
  );
  refused(
    units,
    variant(unitsFixture, (c) => (c.canonical.length = 'metres' + 's')),
    ['canonical', 'length'],
  );
  refused(
    units,
    variant(unitsFixture, (c) => (c.canonical.extra = 'x')),
  );
  refused(
    units,
    variant(unitsFixture, (c) => (c.unit_preference = 'stone')),
    ['unit_preference'],
  );
  refused(
    units,
    variant(unitsFixture, (c) => (c.height_unit_preference = 'in')),
    ['height_unit_preference'],
  );
  refused(
    units,
    variant(unitsFixture, (c) => delete c.bodyweight_unit_preference),
    ['bodyweight_unit_preference'],
  );
});

test('text wrapper: value 1-200, handling literally untrusted_record_text', () => {
  ok(textWrapper, text('x'));
  ok(textWrapper, text('x'.repeat(200)));
  refused(textWrapper, text(''), ['value']);
  refused(textWrapper, text('x'.repeat(201)), ['value']);
  refused(textWrapper, { value: 'x', handling: 'trusted' }, ['handling']);
  refused(textWrapper, { ...text('x'), note: 'y' });
});

test('derived-metric metadata: calculation_version 1-64, window bounds date or date-time', () => {
  ok(derivedMetricMetadata, metadataFixture);
  ok(derivedMetricMetadata, { ...metadataFixture, calculation_version: 'v'.repeat(64), sample_count: 0 });
  refused(derivedMetricMetadata, { ...metadataFixture, calculation_version: 'v'.repeat(65) }, ['calculation_version']);
  refused(derivedMetricMetadata, { ...metadataFixture, calculation_version: '' }, ['calculation_version']);
  refused(derivedMetricMetadata, { ...metadataFixture, provenance: 'recorded' }, ['provenance']);
  refused(derivedMetricMetadata, { ...metadataFixture, sample_count: -1 }, ['sample_count']);
  refused(derivedMetricMetadata, { ...metadataFixture, window: { from: 'last week', to: T } }, ['window', 'from']);
  refused(derivedMetricMetadata, { ...metadataFixture, window: { from: T, to: T, days: 1 } });
});

// ---------------------------------------------------------------------------------------------
// 2.4 - 2.6

test('access context: at least one distinct known scope, fixed constraints', () => {
  ok(accessContext, { ...accessContextFixture, scopes: ['training', 'recovery', 'nutrition', 'body_measurements'] });
  refused(accessContext, { ...accessContextFixture, scopes: [] }, ['scopes']);
  refused(accessContext, { ...accessContextFixture, scopes: ['training', 'training'] }, ['scopes']);
  refused(accessContext, { ...accessContextFixture, scopes: ['billing'] }, ['scopes', 0]);
  refused(
    accessContext,
    variant(accessContextFixture, (c) => (c.constraints.read_only = false)),
  );
  refused(
    accessContext,
    variant(accessContextFixture, (c) => (c.constraints.background_sync = true)),
  );
  refused(
    accessContext,
    variant(accessContextFixture, (c) => (c.constraints.maximum_page_size = 11)),
  );
  refused(
    accessContext,
    variant(accessContextFixture, (c) => (c.constraints.maximum_range_days = 91)),
  );
  refused(
    accessContext,
    variant(accessContextFixture, (c) => (c.record.timezone = '')),
  );
});

test('training snapshot: all four members; counts >= 0; feedback enums', () => {
  ok(trainingSnapshot, snapshotFixture);
  ok(trainingSnapshot, { ...snapshotFixture, exercise_frequency: [], goals: [], recent_feedback: [] });
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => delete c.goals),
    ['goals'],
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.summary.workouts_this_week.value = -1)),
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.summary.workouts_this_week.value = 1.5)),
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.summary.streak_is_current.value = 1)),
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.summary.extra = { value: 1, metadata: metadataFixture })),
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.recent_feedback[0].difficulty = 'hard')),
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.recent_feedback[0].next_time_intent = 'skip')),
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.recent_feedback[0].provenance = 'recorded')),
  );
  refused(
    trainingSnapshot,
    variant(snapshotFixture, (c) => (c.exercise_frequency[0].achieved_sets = -1)),
  );
});

test('goal: positive targets, enums, canonical unit matches target unit, provenance prescribed', () => {
  ok(goal, goalFixture);
  ok(goal, { ...goalFixture, goal_type: 'daily_protein', target_unit: 'g', canonical_target_unit: 'g', exercise_id: null });
  refused(goal, { ...goalFixture, target_value: 0 }, ['target_value']);
  refused(goal, { ...goalFixture, canonical_target_value: -1 }, ['canonical_target_value']);
  refused(goal, { ...goalFixture, canonical_target_unit: 'lbs' }, ['canonical_target_unit']);
  refused(goal, { ...goalFixture, target_unit: 'kcal' }, ['canonical_target_unit']);
  refused(goal, { ...goalFixture, status: 'paused' }, ['status']);
  refused(goal, { ...goalFixture, goal_type: 'daily_steps' }, ['goal_type']);
  refused(goal, { ...goalFixture, provenance: 'self_reported' }, ['provenance']);
  refused(goal, { ...goalFixture, owner: 'me' });
});

// ---------------------------------------------------------------------------------------------
// 2.7 completed workout

test('workout summary: revision > 0, provenance recorded, no extra fields', () => {
  ok(workoutSummary, summaryFixture);
  refused(workoutSummary, { ...summaryFixture, revision: 0 }, ['revision']);
  refused(workoutSummary, { ...summaryFixture, revision: 1.5 }, ['revision']);
  refused(workoutSummary, { ...summaryFixture, provenance: 'derived' }, ['provenance']);
  refused(workoutSummary, { ...summaryFixture, title: 'Push day' }, ['title']);
  refused(workoutSummary, { ...summaryFixture, exercises: [] });
});

test('workout duration: fixed literals and a consistent basis, seconds and sample_count', () => {
  const unknownStart = {
    ...summaryFixture,
    started_at: null,
    duration: { ...durationFixture, seconds: null, basis: 'unknown', sample_count: 0 },
  };
  ok(workoutSummary, unknownStart);
  const d = (change: Record<string, unknown>) => ({
    ...summaryFixture,
    duration: { ...durationFixture, ...change },
  });
  refused(workoutSummary, d({ calculation_version: 'duration.v2' }), ['duration', 'calculation_version']);
  refused(workoutSummary, d({ baseline: 'created_to_end' }), ['duration', 'baseline']);
  refused(workoutSummary, d({ provenance: 'recorded' }), ['duration', 'provenance']);
  refused(workoutSummary, d({ sample_count: 1 }), ['duration', 'sample_count']);
  refused(workoutSummary, d({ sample_count: 0 }), ['duration', 'sample_count']);
  refused(workoutSummary, d({ seconds: -1 }), ['duration', 'seconds']);
  refused(workoutSummary, d({ basis: 'estimated' }), ['duration', 'basis']);
  refused(workoutSummary, d({ seconds: null }), ['duration', 'seconds']);
  refused(workoutSummary, { ...summaryFixture, started_at: null }, ['duration', 'basis']);
  refused(workoutSummary, d({ note: 'x' }));
});

test('workout detail: 200 sets per exercise accepted, 201 refused', () => {
  const withSets = (n: number) => ({ ...detailFixture, exercises: [{ ...exerciseEntryFixture, sets: sets(n) }] });
  ok(workoutDetail, withSets(200));
  ok(workoutDetail, withSets(0));
  refused(workoutDetail, withSets(201), ['exercises', 0, 'sets']);
});

test('workout detail: achieved_set_count 0-200, feedback nullable, exercise limits', () => {
  ok(workoutDetail, detailFixture);
  ok(workoutDetail, { ...detailFixture, achieved_set_count: 0, feedback: null, exercises: [] });
  ok(workoutDetail, { ...detailFixture, achieved_set_count: 200 });
  refused(workoutDetail, { ...detailFixture, achieved_set_count: 201 }, ['achieved_set_count']);
  refused(workoutDetail, { ...detailFixture, achieved_set_count: -1 }, ['achieved_set_count']);
  refused(
    workoutDetail,
    variant(detailFixture, (c) => (c.feedback.provenance = 'recorded')),
    ['feedback', 'provenance'],
  );
  refused(
    workoutDetail,
    variant(detailFixture, (c) => delete c.feedback),
    ['feedback'],
  );
  // biome-ignore lint/suspicious/noExplicitAny: a part of the fixture, changed anywhere
  const ex = (change: (e: any) => void) => variant(detailFixture, (c) => change(c.exercises[0]));
  ok(
    workoutDetail,
    ex((e) => (e.muscle_group = 'm'.repeat(100))),
  );
  ok(
    workoutDetail,
    ex((e) => (e.muscle_group = null)),
  );
  refused(
    workoutDetail,
    ex((e) => (e.muscle_group = 'm'.repeat(101))),
    ['exercises', 0, 'muscle_group'],
  );
  refused(
    workoutDetail,
    ex((e) => (e.tracking_type = 'reps_only')),
    ['exercises', 0, 'tracking_type'],
  );
  refused(
    workoutDetail,
    ex((e) => (e.exercise_order = -1)),
    ['exercises', 0, 'exercise_order'],
  );
  refused(
    workoutDetail,
    ex((e) => (e.superset_id = 'a')),
    ['exercises', 0, 'superset_id'],
  );
  refused(
    workoutDetail,
    ex((e) => (e.notes = 'x')),
  );
});

test('workout set entry: bounds, enums and provenance literals', () => {
  // biome-ignore lint/suspicious/noExplicitAny: a part of the fixture, changed anywhere
  const s = (change: (set: any) => void) => variant(detailFixture, (c) => change(c.exercises[0].sets[0]));
  const at = (...p: (string | number)[]) => ['exercises', 0, 'sets', 0, ...p];
  ok(
    workoutDetail,
    s((x) => Object.assign(x, { set_type: 'drop_set', parent_position: 0, weight_kg: null, reps: null })),
  );
  refused(
    workoutDetail,
    s((x) => (x.position = -1)),
    at('position'),
  );
  refused(
    workoutDetail,
    s((x) => (x.set_number = 0)),
    at('set_number'),
  );
  refused(
    workoutDetail,
    s((x) => (x.structure_version = 0)),
    at('structure_version'),
  );
  refused(
    workoutDetail,
    s((x) => (x.parent_position = -1)),
    at('parent_position'),
  );
  refused(
    workoutDetail,
    s((x) => (x.set_type = 'amrap')),
    at('set_type'),
  );
  refused(
    workoutDetail,
    s((x) => (x.reps = 5.5)),
    at('reps'),
  );
  refused(
    workoutDetail,
    s((x) => (x.duration_seconds = 1.5)),
    at('duration_seconds'),
  );
  refused(
    workoutDetail,
    s((x) => (x.rpe_provenance = 'prescribed')),
    at('rpe_provenance'),
  );
  refused(
    workoutDetail,
    s((x) => (x.target_rpe_provenance = 'self_reported')),
    at('target_rpe_provenance'),
  );
  refused(
    workoutDetail,
    s((x) => (x.provenance = 'derived')),
    at('provenance'),
  );
  refused(
    workoutDetail,
    s((x) => (x.completed = true)),
  );
  refused(
    workoutDetail,
    s((x) => delete x.incline_percent),
    at('incline_percent'),
  );
});

test('historical record at completion: indicator vocabulary and metadata literals', () => {
  // biome-ignore lint/suspicious/noExplicitAny: a part of the fixture, changed anywhere
  const h = (change: (hr: any) => void) => variant(detailFixture, (c) => change(c.exercises[0].sets[0].historical_record_at_completion));
  const at = (...p: (string | number)[]) => ['exercises', 0, 'sets', 0, 'historical_record_at_completion', ...p];
  ok(
    workoutDetail,
    h((x) => (x.indicators = [])),
  );
  ok(
    workoutDetail,
    h((x) => (x.indicators = ['weight', 'reps', 'set_volume', 'estimated_1rm'])),
  );
  refused(
    workoutDetail,
    h((x) => (x.indicators = ['volume'])),
    at('indicators', 0),
  );
  refused(
    workoutDetail,
    h((x) => (x.indicators = ['reps', 'reps'])),
    at('indicators'),
  );
  refused(
    workoutDetail,
    h((x) => (x.metadata.calculation_version = 'historical-record-at-completion.v2')),
    at('metadata', 'calculation_version'),
  );
  refused(
    workoutDetail,
    h((x) => (x.metadata.baseline = 'all_prior_sets')),
    at('metadata', 'baseline'),
  );
  refused(
    workoutDetail,
    h((x) => (x.metadata.provenance = 'recorded')),
    at('metadata', 'provenance'),
  );
  refused(
    workoutDetail,
    h((x) => (x.metadata.sample_count = -1)),
    at('metadata', 'sample_count'),
  );
  refused(
    workoutDetail,
    h((x) => (x.metadata.window = { from: T, to: T })),
  );
});

// ---------------------------------------------------------------------------------------------
// 2.8 - 2.10

test('exercise history: at most 10 items, cursor 1-4096, window valid', () => {
  ok(exerciseHistory, historyFixture);
  ok(exerciseHistory, { ...historyFixture, items: [], next_cursor: null });
  ok(exerciseHistory, { ...historyFixture, items: Array(10).fill(historyItem) });
  refused(exerciseHistory, { ...historyFixture, items: Array(11).fill(historyItem) }, ['items']);
  ok(exerciseHistory, { ...historyFixture, next_cursor: 'c'.repeat(4096) });
  refused(exerciseHistory, { ...historyFixture, next_cursor: 'c'.repeat(4097) }, ['next_cursor']);
  refused(exerciseHistory, { ...historyFixture, next_cursor: '' }, ['next_cursor']);
  refused(exerciseHistory, { ...historyFixture, window: { from: '2024-05-06', to: '2024-05-01' } }, ['window', 'from']);
  refused(exerciseHistory, { ...historyFixture, window: { from: T, to: T } }, ['window', 'from']);
  refused(
    exerciseHistory,
    variant(historyFixture, (c) => (c.items[0].sets[0].provenance = 'derived')),
  );
  refused(
    exerciseHistory,
    variant(historyFixture, (c) => (c.items[0].sets[0].rpe_provenance = 'prescribed')),
  );
  refused(
    exerciseHistory,
    variant(historyFixture, (c) => (c.items[0].sets[0].set_type = 'normal')),
  );
  refused(
    exerciseHistory,
    variant(historyFixture, (c) => (c.exercise.name = 'Bench')),
    ['exercise', 'name'],
  );
});

test('saved routine list item: revision > 0, provenance prescribed', () => {
  ok(routineListItem, routineListItemFixture);
  ok(routineListItem, { ...routineListItemFixture, exercise_count: 0 });
  refused(routineListItem, { ...routineListItemFixture, revision: 0 }, ['revision']);
  refused(routineListItem, { ...routineListItemFixture, exercise_count: -1 }, ['exercise_count']);
  refused(routineListItem, { ...routineListItemFixture, provenance: 'recorded' }, ['provenance']);
  refused(routineListItem, { ...routineListItemFixture, exercises: [] });
});

test('saved routine detail: at most 50 exercises; sets 1-20; reps text 1-32', () => {
  ok(routineDetail, routineDetailFixture);
  ok(routineDetail, routineWith(50));
  ok(routineDetail, routineWith(0));
  refused(routineDetail, routineWith(51), ['exercises']);
  refused(routineDetail, { ...routineDetailFixture, exercise_count: 2 }, ['exercise_count']);
  const ex = (change: Record<string, unknown>) => ({
    ...routineDetailFixture,
    exercises: [{ ...routineExerciseFixture, ...change }],
  });
  ok(routineDetail, ex({ sets: 1 }));
  ok(routineDetail, ex({ sets: 20 }));
  refused(routineDetail, ex({ sets: 0 }), ['exercises', 0, 'sets']);
  refused(routineDetail, ex({ sets: 21 }), ['exercises', 0, 'sets']);
  ok(routineDetail, ex({ reps: '5' }));
  ok(routineDetail, ex({ reps: 'r'.repeat(32) }));
  refused(routineDetail, ex({ reps: '' }), ['exercises', 0, 'reps']);
  refused(routineDetail, ex({ reps: 'r'.repeat(33) }), ['exercises', 0, 'reps']);
  refused(routineDetail, ex({ reps: 8 }), ['exercises', 0, 'reps']);
  ok(routineDetail, ex({ tracking_type: 'duration', muscle_group: 'm'.repeat(100), target_rpe: 7.5, rest_seconds: null }));
  refused(routineDetail, ex({ muscle_group: 'm'.repeat(101) }), ['exercises', 0, 'muscle_group']);
  refused(routineDetail, ex({ position: -1 }), ['exercises', 0, 'position']);
  refused(routineDetail, ex({ provenance: 'recorded' }), ['exercises', 0, 'provenance']);
  refused(routineDetail, ex({ superset_id: null }));
});

test('recovery check-ins: fixed scale, values 1-5 or null, at most 10 items', () => {
  ok(recoveryCheckins, recoveryFixture);
  ok(recoveryCheckins, { ...recoveryFixture, items: [] });
  ok(recoveryCheckins, { ...recoveryFixture, items: Array(10).fill(checkinFixture) });
  refused(recoveryCheckins, { ...recoveryFixture, items: Array(11).fill(checkinFixture) }, ['items']);
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.scale.maximum = 10)),
    ['scale', 'maximum'],
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.scale.higher_is_better = false)),
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.scale.soreness_five_means = 'very_sore')),
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.items[0].energy = 0)),
    ['items', 0, 'energy'],
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.items[0].stress = 6)),
    ['items', 0, 'stress'],
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.items[0].sleep_quality = 3.5)),
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.items[0].date = T)),
    ['items', 0, 'date'],
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => (c.items[0].provenance = 'recorded')),
  );
  refused(
    recoveryCheckins,
    variant(recoveryFixture, (c) => delete c.next_cursor),
    ['next_cursor'],
  );
});

// ---------------------------------------------------------------------------------------------
// 4.1 list query parameters

test('list query: defaults are limit 5 and nulls', () => {
  assert.equal(listQuery.parse({}), { limit: 5, cursor: null, from: null, to: null });
  assert.equal(pageQuery.parse({}), { limit: 5, cursor: null });
});

test('list query: limit 1-10, from a query string or a JSON number', () => {
  assert.is(listQuery.parse({ limit: 1 }).limit, 1);
  assert.is(listQuery.parse({ limit: 10 }).limit, 10);
  assert.is(listQuery.parse({ limit: '10' }).limit, 10);
  for (const bad of [0, 11, '0', '11', -1, 2.5, '2.5', '', 'five', '1e1', ' 5', null]) {
    refused(listQuery, { limit: bad }, ['limit']);
  }
});

test('list query: cursor 1-4096 characters or null', () => {
  assert.is(listQuery.parse({ cursor: 'c'.repeat(4096) }).cursor, 'c'.repeat(4096));
  assert.is(listQuery.parse({ cursor: null }).cursor, null);
  refused(listQuery, { cursor: 'c'.repeat(4097) }, ['cursor']);
  refused(listQuery, { cursor: '' }, ['cursor']);
  refused(pageQuery, { cursor: 'c'.repeat(4097) }, ['cursor']);
});

test('list query: from and to are given together', () => {
  ok(listQuery, { from: '2024-05-01', to: '2024-05-01' });
  ok(listQuery, { from: null, to: null });
  refused(listQuery, { from: '2024-05-01' }, ['to']);
  refused(listQuery, { to: '2024-05-01' }, ['from']);
  const r = listQuery.safeParse({ from: '2024-05-01' });
  assert.ok(!r.success && r.error.issues[0]!.message.includes('together'));
});

test('list query: from must not be after to', () => {
  refused(listQuery, { from: '2024-05-02', to: '2024-05-01' }, ['from']);
});

test('list query: range of at most 90 days, both dates included', () => {
  assert.is(windowDays('2024-01-01', '2024-01-01'), 1);
  assert.is(windowDays('2024-01-01', '2024-03-30'), 90);
  ok(listQuery, { from: '2024-01-01', to: '2024-03-30' });
  refused(listQuery, { from: '2024-01-01', to: '2024-03-31' }, ['to']);
  // Across a DST change the count is still in calendar days.
  ok(listQuery, { from: '2024-03-01', to: '2024-05-29' });
  refused(listQuery, { from: '2024-03-01', to: '2024-05-30' }, ['to']);
  const r = listQuery.safeParse({ from: '2024-01-01', to: '2024-12-31' });
  assert.ok(!r.success && r.error.issues[0]!.message.includes('at most 90 days'));
  refused(dateWindow, { from: '2024-01-01', to: '2024-03-31' }, ['to']);
});

test('list query: dates are YYYY-MM-DD calendar dates; unknown parameters are refused', () => {
  refused(listQuery, { from: '2024-02-30', to: '2024-03-01' }, ['from']);
  refused(listQuery, { from: '2024-5-1', to: '2024-05-02' }, ['from']);
  refused(listQuery, { from: T, to: T }, ['from']);
  refused(listQuery, { page: 2 });
  refused(pageQuery, { from: '2024-05-01', to: '2024-05-02' });
});

// ---------------------------------------------------------------------------------------------
// Nutrition and body measurements (our design)

test('meal: self-reported, nutrients >= 0 or null, name wrapped', () => {
  ok(meal, mealFixture);
  ok(meal, { ...mealFixture, calories_kcal: 0, protein_g: null });
  refused(meal, { ...mealFixture, calories_kcal: -1 }, ['calories_kcal']);
  refused(meal, { ...mealFixture, name: 'Oats' }, ['name']);
  refused(meal, { ...mealFixture, revision: 0 }, ['revision']);
  refused(meal, { ...mealFixture, provenance: 'recorded' }, ['provenance']);
  refused(meal, { ...mealFixture, local_date: T }, ['local_date']);
  refused(meal, { ...mealFixture, notes: 'x' });
});

test('daily nutrition summary: at least one meal, totals derived and nullable', () => {
  ok(dailyNutritionSummary, dailyFixture);
  refused(dailyNutritionSummary, { ...dailyFixture, meal_count: 0 }, ['meal_count']);
  refused(
    dailyNutritionSummary,
    variant(dailyFixture, (c) => (c.fat_g.value = -1)),
    ['fat_g', 'value'],
  );
  refused(
    dailyNutritionSummary,
    variant(dailyFixture, (c) => (c.fat_g.metadata.provenance = 'self_reported')),
  );
  refused(dailyNutritionSummary, { ...dailyFixture, fibre_g: dailyFixture.fat_g });
});

test('body measurement: metric vocabulary, unit is the canonical unit of the metric', () => {
  ok(bodyMeasurement, measurementFixture);
  ok(bodyMeasurement, { ...measurementFixture, metric: 'body_fat', unit: 'percent', value: 100 });
  ok(bodyMeasurement, { ...measurementFixture, metric: 'waist', unit: 'metres', value: 0.84 });
  refused(bodyMeasurement, { ...measurementFixture, metric: 'body_fat', unit: 'percent', value: 100.5 }, ['value']);
  refused(bodyMeasurement, { ...measurementFixture, unit: 'metres' }, ['unit']);
  refused(bodyMeasurement, { ...measurementFixture, unit: 'lbs' }, ['unit']);
  refused(bodyMeasurement, { ...measurementFixture, metric: 'calf', unit: 'metres' }, ['metric']);
  refused(bodyMeasurement, { ...measurementFixture, value: 0 }, ['value']);
  refused(bodyMeasurement, { ...measurementFixture, provenance: 'derived' }, ['provenance']);
  refused(bodyMeasurement, { ...measurementFixture, revision: 0 }, ['revision']);
});

// ---------------------------------------------------------------------------------------------
// 7 errors

test('error statuses: every operation in /openapi.json documents exactly the statuses of spec 7.1, each with the error body', () => {
  const quota = { units: 600, windowMs: 60_000 };
  const document = inlined(openApiDocument('http://localhost:3000', { agentAccess: quota, readApi: quota }));
  const errorSchema = document.components.schemas.Error as unknown as { properties: { error: { properties: { code: { enum: string[] } } } } };
  assert.equal([...errorSchema.properties.error.properties.code.enum].sort(), [...AGENT_ACCESS_ERROR_CODES].sort());
  // The Read API's routes have their own statuses (test/http/read-api-refusals.test.ts).
  const documented = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/v1/agent-access/'))
    .flatMap(([path, item]) =>
      Object.entries(item as Record<string, { responses: Record<string, { content: unknown }> }>).map(
        ([method, o]) => [`${method} ${path}`, o.responses] as const,
      ),
    );
  assert.equal(
    documented.map(([where]) => where).sort(),
    operationList.map((op) => `${op.method.toLowerCase()} ${op.path}`).sort(),
    'every operation of the table, under its method',
  );
  for (const [path, responses] of documented) {
    const errors = Object.keys(responses).filter((status) => status !== '200' && status !== '201');
    assert.equal(errors, ['400', '401', '403', '404', '413', '429', '503'], path);
    for (const status of errors)
      assert.equal(responses[status]!.content, { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }, `${path} ${status}`);
  }
  // Each code is answered with a status the operations document.
  for (const code of AGENT_ACCESS_ERROR_CODES)
    assert.ok(['400', '401', '403', '404', '413', '429', '503'].includes(String(AGENT_ACCESS_ERROR_STATUS[code])), code);
});

test('error body: each documented code, a uuid request_id, nothing else', () => {
  for (const code of AGENT_ACCESS_ERROR_CODES) {
    ok(agentAccessError, { error: { code, message: 'Something went wrong.', request_id: id(1) } });
  }
  const body = { error: { code: 'not_found', message: 'No such workout.', request_id: id(1) } };
  refused(
    agentAccessError,
    variant(body, (c) => (c.error.code = 'forbidden')),
    ['error', 'code'],
  );
  refused(
    agentAccessError,
    variant(body, (c) => (c.error.message = '')),
    ['error', 'message'],
  );
  refused(
    agentAccessError,
    variant(body, (c) => (c.error.request_id = 'r1')),
    ['error', 'request_id'],
  );
  refused(
    agentAccessError,
    variant(body, (c) => (c.error.details = [])),
  );
  refused(agentAccessError, { ...body, request_id: id(1) });
});

test.run();
