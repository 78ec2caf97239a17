// The record decider, pure: decideChanges turns a batch of changes into events or refuses it;
// evolve folds the events back into the state later decisions are made against.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordEvent } from '../../contracts/events.ts';
import { recordKinds, type RecordItem, type RecordKind } from '../../contracts/record.ts';
import { DomainError, type DomainErrorCode } from '../../services/domain/errors.ts';
import { thrown } from '../support/thrown.ts';
import {
  decideChanges,
  evolve,
  initialRecordState,
  itemImages,
  itemKey,
  live,
  type RecordChange,
  type RecordState,
} from '../../services/domain/record.ts';

// ---------------------------------------------------------------------------------------------
// Builders

/** A valid v4 uuid, distinct per number. */
const uid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const ATHLETE = uid(0xa7);
const BENCH = uid(1);
const SQUAT = uid(2);
const WORKOUT = uid(10);
const OTHER_WORKOUT = uid(11);
const ROUTINE = uid(20);
const GOAL = uid(30);
const CHECKIN_A = uid(40);
const CHECKIN_B = uid(41);
const CHECKIN_C = uid(42);
const MEAL = uid(50);
const MEASUREMENT = uid(60);
const SETUP = uid(70);
const MISSING = uid(999);

function exerciseItem(overrides: Partial<RecordItem<'exercise'>> = {}): RecordItem<'exercise'> {
  return { id: BENCH, name: 'Bench Press', muscle_group: 'chest', tracking_type: 'weight_reps', ...overrides };
}

function setItem(overrides: Partial<RecordItem<'workout'>['exercises'][number]['sets'][number]> = {}) {
  return {
    position: 0,
    set_number: 1,
    set_type: 'normal' as const,
    parent_position: null,
    weight_kg: 80,
    reps: 5,
    rpe: 8,
    target_rpe: null,
    duration_seconds: null,
    distance_metres: null,
    incline_percent: null,
    completed: true,
    ...overrides,
  };
}

function workoutExerciseItem(overrides: Partial<RecordItem<'workout'>['exercises'][number]> = {}) {
  return { exercise_id: BENCH, exercise_order: 0, superset_id: null, notes: null, sets: [setItem()], ...overrides };
}

function workoutItem(overrides: Partial<RecordItem<'workout'>> = {}): RecordItem<'workout'> {
  return {
    id: WORKOUT,
    title: 'Push Day',
    started_at: '2026-01-05T08:00:00.000Z',
    ended_at: '2026-01-05T09:05:00.000Z',
    notes: null,
    exercises: [workoutExerciseItem()],
    source: null,
    ...overrides,
  };
}

function feedbackItem(overrides: Partial<RecordItem<'feedback'>> = {}): RecordItem<'feedback'> {
  return { id: WORKOUT, difficulty: 'as_expected', next_time_intent: 'keep', recorded_at: '2026-01-05T09:10:00.000Z', ...overrides };
}

function routineItem(overrides: Partial<RecordItem<'routine'>> = {}): RecordItem<'routine'> {
  return {
    id: ROUTINE,
    title: 'Upper A',
    exercises: [{ position: 0, exercise_id: BENCH, sets: 3, reps: '5-8', target_rpe: 8, rest_seconds: 120 }],
    scheduled_dates: ['2026-01-07'],
    ...overrides,
  };
}

function goalItem(overrides: Partial<RecordItem<'goal'>> = {}): RecordItem<'goal'> {
  return {
    id: GOAL,
    goal_type: 'target_1rm',
    status: 'active',
    exercise_id: BENCH,
    target_value: 100,
    target_unit: 'kg',
    achieved_at: null,
    ...overrides,
  };
}

function checkinItem(overrides: Partial<RecordItem<'checkin'>> = {}): RecordItem<'checkin'> {
  return { id: CHECKIN_A, date: '2026-01-05', sleep_quality: 4, energy: 3, soreness: 5, stress: 2, ...overrides };
}

function mealItem(overrides: Partial<RecordItem<'meal'>> = {}): RecordItem<'meal'> {
  return {
    id: MEAL,
    eaten_at: '2026-01-05T12:30:00.000Z',
    name: 'Chicken and rice',
    calories_kcal: 650,
    protein_g: 45,
    carbohydrate_g: 80,
    fat_g: 12,
    ...overrides,
  };
}

function bodyMeasurementItem(overrides: Partial<RecordItem<'body_measurement'>> = {}): RecordItem<'body_measurement'> {
  return { id: MEASUREMENT, measured_at: '2026-01-05T07:00:00.000Z', metric: 'bodyweight', value: 82.4, ...overrides };
}

function equipmentSetupItem(overrides: Partial<RecordItem<'equipment_setup'>> = {}): RecordItem<'equipment_setup'> {
  return { id: SETUP, name: 'Home gym', equipment: ['barbell', 'rack'], ...overrides };
}

function fitnessPreferencesItem(overrides: Partial<RecordItem<'fitness_preferences'>> = {}): RecordItem<'fitness_preferences'> {
  return { id: ATHLETE, experience_level: 'intermediate', training_days_per_week: 4, session_minutes: 60, focus: ['strength'], ...overrides };
}

const validItems: { [K in RecordKind]: () => RecordItem<K> } = {
  exercise: () => exerciseItem({ id: SQUAT, name: 'Squat' }),
  workout: () => workoutItem({ id: OTHER_WORKOUT }),
  feedback: () => feedbackItem(),
  routine: () => routineItem(),
  goal: () => goalItem(),
  checkin: () => checkinItem(),
  meal: () => mealItem(),
  body_measurement: () => bodyMeasurementItem(),
  equipment_setup: () => equipmentSetupItem(),
  fitness_preferences: () => fitnessPreferencesItem(),
};

const create = (kind: RecordKind, item: unknown): RecordChange => ({ op: 'create', kind, item });
const update = (kind: RecordKind, item: unknown, base_revision: number): RecordChange => ({ op: 'update', kind, item, base_revision });
const del = (kind: RecordKind, id: string, base_revision: number): RecordChange => ({ op: 'delete', kind, id, base_revision });

/** Decides each batch in turn against the folded state and returns the state after all of them. */
function stateAfter(...batches: RecordChange[][]): RecordState {
  const state = initialRecordState(ATHLETE);
  for (const batch of batches) for (const event of decideChanges(batch, state)) evolve(state, event);
  return state;
}

/** The athlete has Bench Press in the catalog and one workout (revision 1) that uses it. */
const withWorkout = () => stateAfter([create('exercise', exerciseItem())], [create('workout', workoutItem())]);

/** The error the decision is refused with; fails the test when it is not refused. */
const refusal = (run: () => unknown): DomainError => thrown(DomainError, run);

function assertRefused(decide: () => unknown, code: DomainErrorCode, path?: string): DomainError {
  const error = refusal(decide);
  assert.is(error.code, code, `refused with ${error.code} (${error.message}), expected ${code}`);
  if (path !== undefined) {
    const paths = error.issues.map((i) => i.path);
    assert.ok(paths.includes(path), `issue paths ${JSON.stringify(paths)} should include ${path}`);
  }
  return error;
}

/** The revision a record change event carries (NaN for other events). */
const revisionOf = (e: RecordEvent) => ('revision' in e.data ? e.data.revision : NaN);
/** The id of the item a record change event is about. */
const idOf = (e: RecordEvent) => ('item' in e.data ? e.data.item.id : 'id' in e.data ? e.data.id : '');

/** A plain snapshot of the state, to compare before and after a decision; entry order is no part of it. */
const snapshot = (s: RecordState) => {
  const sorted = (entries: Iterable<unknown>) => [...entries].map((e) => JSON.stringify(e)).sort();
  return {
    athleteId: s.athleteId,
    items: sorted(s.items),
    checkinIdByDate: sorted(s.checkinIdByDate),
    checkinDateById: sorted(s.checkinDateById),
    exerciseIdByName: sorted(s.exerciseIdByName),
    workoutIdBySourceRef: sorted(s.workoutIdBySourceRef),
    importedFiles: sorted(s.importedFiles),
    exerciseUses: sorted(s.exerciseUses),
  };
};

// ---------------------------------------------------------------------------------------------
// Create, update, delete

test('the builders cover every record kind', () => {
  assert.equal(Object.keys(validItems).sort(), [...recordKinds].sort());
});

for (const kind of recordKinds) {
  test(`creating a valid ${kind} yields ${kind}.created at revision 1`, () => {
    const state = withWorkout();
    const item = validItems[kind]();
    const events = decideChanges([create(kind, item)], state);
    assert.equal(events, [{ type: `${kind}.created`, data: { item, revision: 1 } }]);
    evolve(state, events[0]!);
    assert.equal(live(state, kind, item.id), { revision: 1, deleted: false });
  });
}

test('instants written with an offset or without milliseconds are kept in UTC as toISOString writes them, so they order as text', () => {
  const state = withWorkout();
  const [meal] = decideChanges([create('meal', mealItem({ eaten_at: '2026-01-05T14:30:00+02:00' }))], state);
  assert.is((meal!.data as { item: RecordItem<'meal'> }).item.eaten_at, '2026-01-05T12:30:00.000Z');
  const [workout] = decideChanges([create('workout', workoutItem({ id: uid(77), started_at: '2026-01-04T23:30:00-05:00', ended_at: '2026-01-05T05:00:00Z' }))], state);
  const { started_at, ended_at } = (workout!.data as { item: RecordItem<'workout'> }).item;
  assert.equal([started_at, ended_at], ['2026-01-05T04:30:00.000Z', '2026-01-05T05:00:00.000Z']);
  const [measurement] = decideChanges([create('body_measurement', { id: uid(78), measured_at: '2026-01-05T08:00:00.5+01:00', metric: 'waist', value: 0.8 })], state);
  assert.is((measurement!.data as { item: RecordItem<'body_measurement'> }).item.measured_at, '2026-01-05T07:00:00.500Z');
});

test('an update at the current revision yields the next revision', () => {
  const state = stateAfter([create('meal', mealItem())]);
  const first = decideChanges([update('meal', mealItem({ name: 'Lunch' }), 1)], state);
  assert.equal(first, [{ type: 'meal.updated', data: { item: mealItem({ name: 'Lunch' }), revision: 2 } }]);
  evolve(state, first[0]!);
  const second = decideChanges([update('meal', mealItem({ protein_g: 50 }), 2)], state);
  assert.equal(second, [{ type: 'meal.updated', data: { item: mealItem({ protein_g: 50 }), revision: 3 } }]);
});

test('a delete at the current revision yields <kind>.deleted at the next revision', () => {
  const state = stateAfter([create('meal', mealItem())], [update('meal', mealItem({ name: 'Lunch' }), 1)]);
  assert.equal(decideChanges([del('meal', MEAL, 2)], state), [{ type: 'meal.deleted', data: { id: MEAL, revision: 3 } }]);
});

test('an update at a stale base_revision is a revision_conflict that names the current revision', () => {
  const state = stateAfter([create('meal', mealItem())], [update('meal', mealItem({ name: 'Lunch' }), 1)]);
  const error = assertRefused(() => decideChanges([update('meal', mealItem({ name: 'Dinner' }), 1)], state), 'revision_conflict', 'base_revision');
  assert.match(error.message, /revision 2/);
  assert.equal(error.issues, [{ path: 'base_revision', message: 'current revision is 2' }]);
});

test('a delete at a stale (or future) base_revision is a revision_conflict that names the current revision', () => {
  const state = stateAfter([create('meal', mealItem())], [update('meal', mealItem({ name: 'Lunch' }), 1)]);
  for (const stale of [1, 3]) {
    const error = assertRefused(() => decideChanges([del('meal', MEAL, stale)], state), 'revision_conflict', 'base_revision');
    assert.equal(error.issues[0]!.message, 'current revision is 2');
  }
});

test('updating or deleting an item that never existed is not_found', () => {
  const state = withWorkout();
  assertRefused(() => decideChanges([update('meal', mealItem(), 1)], state), 'not_found');
  assertRefused(() => decideChanges([del('meal', MEAL, 1)], state), 'not_found', 'id');
  // The id exists, but as another kind of item.
  assertRefused(() => decideChanges([del('meal', WORKOUT, 1)], state), 'not_found');
});

test('updating or deleting a deleted item is not_found', () => {
  const state = stateAfter([create('meal', mealItem())], [del('meal', MEAL, 1)]);
  assertRefused(() => decideChanges([update('meal', mealItem(), 2)], state), 'not_found');
  assertRefused(() => decideChanges([del('meal', MEAL, 2)], state), 'not_found');
});

test('updating a deleted item is not_found, even when its body would now break a rule of the record', () => {
  // The check-in was deleted and its date taken by another one since.
  const checkins = stateAfter([create('checkin', checkinItem())], [del('checkin', CHECKIN_A, 1)], [create('checkin', checkinItem({ id: CHECKIN_B }))]);
  assertRefused(() => decideChanges([update('checkin', checkinItem(), 2)], checkins), 'not_found');
  // The feedback went with its workout.
  const feedback = withWorkout();
  for (const e of decideChanges([create('feedback', feedbackItem())], feedback)) evolve(feedback, e);
  for (const e of decideChanges([del('workout', WORKOUT, 1)], feedback)) evolve(feedback, e);
  assertRefused(() => decideChanges([update('feedback', feedbackItem({ next_time_intent: 'review' }), 1)], feedback), 'not_found');
});

test('an update at a stale base_revision is a revision_conflict, even when its body would now break a rule of the record', () => {
  // Another client moved check-in B to the 6th (revision 2); a stale client moves it to the 5th, which A holds.
  const state = stateAfter(
    [create('checkin', checkinItem()), create('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-07' }))],
    [update('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-06' }), 1)],
  );
  assertRefused(() => decideChanges([update('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-05' }), 1)], state), 'revision_conflict');
});

test('creating an id that exists is already_exists', () => {
  const state = stateAfter([create('meal', mealItem())]);
  assertRefused(() => decideChanges([create('meal', mealItem({ name: 'Again' }))], state), 'already_exists', 'item.id');
});

test('creating an id that existed (and was deleted) is already_exists', () => {
  const state = stateAfter([create('meal', mealItem())], [del('meal', MEAL, 1)]);
  assertRefused(() => decideChanges([create('meal', mealItem())], state), 'already_exists', 'item.id');
});

// ---------------------------------------------------------------------------------------------
// Carrying items over from a RepLedger export

const carry = (kind: RecordKind, item: unknown, revision: number): RecordChange => ({ op: 'carry', kind, item, revision, created_at: '2026-01-05T08:00:00.000Z', updated_at: '2026-02-01T09:30:00.000Z' });

test('a carried item keeps its revision and times; the next update continues from that revision', () => {
  const state = stateAfter([create('exercise', exerciseItem())]);
  const events = decideChanges([carry('meal', mealItem(), 4)], state);
  assert.equal(events, [{ type: 'meal.created', data: { item: mealItem(), revision: 4, created_at: '2026-01-05T08:00:00.000Z', updated_at: '2026-02-01T09:30:00.000Z' } }] as unknown as RecordEvent[]);
  evolve(state, events[0]!);
  assert.equal(decideChanges([update('meal', mealItem({ name: 'Lunch' }), 4)], state).map(revisionOf), [5]);
});

test('carrying an id the record holds or held is already_exists; a carried item obeys the rules of a create', () => {
  assertRefused(() => decideChanges([carry('workout', workoutItem(), 2)], withWorkout()), 'already_exists', 'item.id');
  const deleted = stateAfter([create('meal', mealItem())], [del('meal', MEAL, 1)]);
  assertRefused(() => decideChanges([carry('meal', mealItem(), 2)], deleted), 'already_exists', 'item.id');
  assertRefused(() => decideChanges([carry('workout', workoutItem(), 3)], initialRecordState(ATHLETE)), 'unknown_reference', 'item.exercises.0.exercise_id');
  assertRefused(() => decideChanges([{ ...carry('meal', mealItem(), 1), updated_at: 'yesterday' } as RecordChange], initialRecordState(ATHLETE)), 'invalid_input', 'updated_at');
  assertRefused(() => decideChanges([carry('meal', mealItem(), 0)], initialRecordState(ATHLETE)), 'invalid_input', 'revision');
});

test('itemImages takes a carried item\'s times from its event, not from when the event was written', () => {
  const events = decideChanges([carry('meal', mealItem(), 3)], initialRecordState(ATHLETE));
  const images = itemImages(events.map((e) => ({ type: e.type, data: e.data, occurred_at: '2026-11-26T11:00:00.000Z' })));
  assert.equal(images.get(itemKey('meal', MEAL)), { kind: 'meal', id: MEAL, revision: 3, item: mealItem(), created_at: '2026-01-05T08:00:00.000Z', updated_at: '2026-02-01T09:30:00.000Z' });
});

test('an exercise a workout uses cannot be deleted; once nothing uses it, it can', () => {
  const state = withWorkout();
  assertRefused(() => decideChanges([del('exercise', BENCH, 1)], state), 'not_supported');
  // In one batch: the workout goes first, then the exercise it used (what an undo does).
  const events = decideChanges([del('workout', WORKOUT, 1), del('exercise', BENCH, 1)], state);
  assert.equal(events.map((e) => e.type), ['workout.deleted', 'exercise.deleted']);
});

// ---------------------------------------------------------------------------------------------
// Invalid items

test('a workout that starts after it ends is invalid_input at item.started_at', () => {
  const item = workoutItem({ started_at: '2026-01-05T10:00:00.000Z', ended_at: '2026-01-05T09:00:00.000Z' });
  assertRefused(() => decideChanges([create('workout', item)], withWorkout()), 'invalid_input', 'item.started_at');
});

test('a set with weight -1 is invalid_input at its path', () => {
  const item = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, weight_kg: -1 })] })] });
  assertRefused(() => decideChanges([create('workout', item)], withWorkout()), 'invalid_input', 'item.exercises.0.sets.1.weight_kg');
});

test('201 sets in one workout exercise is invalid_input; 200 is fine', () => {
  const sets = (n: number) => Array.from({ length: n }, (_, i) => setItem({ position: i, set_number: i + 1 }));
  const state = withWorkout();
  const ok = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: sets(200) })] });
  assert.is(decideChanges([create('workout', ok)], state).length, 1);
  const tooMany = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: sets(201) })] });
  assertRefused(() => decideChanges([create('workout', tooMany)], state), 'invalid_input', 'item.exercises.0.sets');
});

test('an extra field is invalid_input', () => {
  const error = assertRefused(() => decideChanges([create('meal', { ...mealItem(), rating: 5 })], initialRecordState(ATHLETE)), 'invalid_input');
  assert.ok(error.issues.some((i) => i.path === 'item' && /rating/.test(i.message)), JSON.stringify(error.issues));
});

test('an invalid update is refused as invalid_input, not applied', () => {
  const state = stateAfter([create('meal', mealItem())]);
  assertRefused(() => decideChanges([update('meal', mealItem({ calories_kcal: -5 }), 1)], state), 'invalid_input', 'item.calories_kcal');
});

test('issue paths of a change inside a batch carry the change index', () => {
  const state = withWorkout();
  const error = assertRefused(
    () => decideChanges([create('meal', mealItem()), create('body_measurement', bodyMeasurementItem({ value: 0 }))], state),
    'invalid_input',
  );
  assert.equal(error.issues.map((i) => i.path), ['changes[1].item.value']);
});

// ---------------------------------------------------------------------------------------------
// References

test('a workout naming an exercise not in the catalog is unknown_reference', () => {
  const item = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem(), workoutExerciseItem({ exercise_id: MISSING, exercise_order: 1 })] });
  assertRefused(() => decideChanges([create('workout', item)], withWorkout()), 'unknown_reference', 'item.exercises.1.exercise_id');
});

test('a routine naming an exercise not in the catalog is unknown_reference', () => {
  const item = routineItem({ exercises: [{ position: 0, exercise_id: MISSING, sets: 3, reps: '5', target_rpe: null, rest_seconds: null }] });
  assertRefused(() => decideChanges([create('routine', item)], withWorkout()), 'unknown_reference', 'item.exercises.0.exercise_id');
});

test('a goal naming an exercise not in the catalog is unknown_reference', () => {
  assertRefused(() => decideChanges([create('goal', goalItem({ exercise_id: MISSING }))], withWorkout()), 'unknown_reference', 'item.exercise_id');
});

test('feedback for a workout that does not exist is unknown_reference', () => {
  assertRefused(() => decideChanges([create('feedback', feedbackItem({ id: MISSING }))], withWorkout()), 'unknown_reference', 'item.id');
});

test('feedback for a deleted workout is unknown_reference', () => {
  const state = withWorkout();
  for (const e of decideChanges([del('workout', WORKOUT, 1)], state)) evolve(state, e);
  assertRefused(() => decideChanges([create('feedback', feedbackItem())], state), 'unknown_reference', 'item.id');
});

// ---------------------------------------------------------------------------------------------
// Goals

test('a goal unit must fit the goal type', () => {
  const state = withWorkout();
  const fits: [RecordItem<'goal'>['goal_type'], string, string][] = [
    ['target_1rm', 'kg', 'sessions'],
    ['target_bodyweight', 'lbs', 'kcal'],
    ['weekly_volume', 'kg', 'g'],
    ['weekly_session_count', 'sessions', 'kg'],
    ['daily_calories', 'kcal', 'g'],
    ['daily_protein', 'g', 'kcal'],
  ];
  for (const [goal_type, good, bad] of fits) {
    const base = { goal_type, exercise_id: goal_type === 'target_1rm' ? BENCH : null };
    const ok = goalItem({ ...base, target_unit: good as RecordItem<'goal'>['target_unit'] });
    assert.is(decideChanges([create('goal', ok)], state)[0]!.type, 'goal.created', `${goal_type} in ${good}`);
    const wrong = goalItem({ ...base, target_unit: bad as RecordItem<'goal'>['target_unit'] });
    assertRefused(() => decideChanges([create('goal', wrong)], state), 'invalid_input', 'item.target_unit');
  }
});

test('a target_1rm goal needs an exercise_id', () => {
  assertRefused(() => decideChanges([create('goal', goalItem({ exercise_id: null }))], withWorkout()), 'invalid_input', 'item.exercise_id');
});

test('achieved_at is set exactly when the goal is achieved', () => {
  const state = withWorkout();
  const at = '2026-02-01T10:00:00.000Z';
  assert.is(decideChanges([create('goal', goalItem({ status: 'achieved', achieved_at: at }))], state).length, 1);
  assert.is(decideChanges([create('goal', goalItem({ status: 'archived', achieved_at: null }))], state).length, 1);
  assertRefused(() => decideChanges([create('goal', goalItem({ status: 'achieved', achieved_at: null }))], state), 'invalid_input', 'item.achieved_at');
  assertRefused(() => decideChanges([create('goal', goalItem({ status: 'active', achieved_at: at }))], state), 'invalid_input', 'item.achieved_at');
  assertRefused(() => decideChanges([create('goal', goalItem({ status: 'archived', achieved_at: at }))], state), 'invalid_input', 'item.achieved_at');
});

test('a target that vanishes in kilograms is refused: the canonical target is > 0 too (spec 2.6)', () => {
  const state = withWorkout();
  assertRefused(() => decideChanges([create('goal', goalItem({ target_value: 5e-324, target_unit: 'lbs' }))], state), 'invalid_input', 'item.target_value');
  assert.is(decideChanges([create('goal', goalItem({ target_value: 5e-324, target_unit: 'kg' }))], state).length, 1, 'in kilograms it is kept as set');
  assert.is(decideChanges([create('goal', goalItem({ target_value: 0.5, target_unit: 'lbs' }))], state).length, 1);
});

// ---------------------------------------------------------------------------------------------
// Body measurements

test('body fat is a percentage: over 100 is invalid_input; other metrics keep their own bound', () => {
  const state = withWorkout();
  assertRefused(() => decideChanges([create('body_measurement', bodyMeasurementItem({ metric: 'body_fat', value: 100.5 }))], state), 'invalid_input', 'item.value');
  assert.is(decideChanges([create('body_measurement', bodyMeasurementItem({ metric: 'body_fat', value: 100 }))], state).length, 1);
  assert.is(decideChanges([create('body_measurement', bodyMeasurementItem({ metric: 'waist', value: 500 }))], state).length, 1);
});

// ---------------------------------------------------------------------------------------------
// Check-ins: one per date

test('a second check-in on a taken date is date_taken', () => {
  const state = stateAfter([create('checkin', checkinItem())]);
  assertRefused(() => decideChanges([create('checkin', checkinItem({ id: CHECKIN_B }))], state), 'date_taken', 'item.date');
});

test('moving a check-in onto a taken date is date_taken; keeping its own date is fine', () => {
  const state = stateAfter([create('checkin', checkinItem()), create('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-06' }))]);
  assertRefused(() => decideChanges([update('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-05' }), 1)], state), 'date_taken', 'item.date');
  const events = decideChanges([update('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-06', energy: 5 }), 1)], state);
  assert.is(events[0]!.type, 'checkin.updated');
});

test('after a check-in is deleted its date is free', () => {
  const state = stateAfter([create('checkin', checkinItem())], [del('checkin', CHECKIN_A, 1)]);
  const events = decideChanges([create('checkin', checkinItem({ id: CHECKIN_B }))], state);
  assert.is(events[0]!.type, 'checkin.created');
});

test('after a check-in moves to another date, its old date is free and its new one taken', () => {
  const state = stateAfter([create('checkin', checkinItem())], [update('checkin', checkinItem({ date: '2026-01-09' }), 1)]);
  assert.is(decideChanges([create('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-05' }))], state)[0]!.type, 'checkin.created');
  assertRefused(() => decideChanges([create('checkin', checkinItem({ id: CHECKIN_C, date: '2026-01-09' }))], state), 'date_taken');
});

test('within a batch, a check-in may take a date another one leaves', () => {
  const state = stateAfter([create('checkin', checkinItem())]);
  const events = decideChanges([update('checkin', checkinItem({ date: '2026-01-04' }), 1), create('checkin', checkinItem({ id: CHECKIN_B }))], state);
  assert.equal(events.map((e) => e.type), ['checkin.updated', 'checkin.created']);
});

// ---------------------------------------------------------------------------------------------
// Workouts, feedback, drop sets

test('deleting a workout also deletes its feedback', () => {
  const state = withWorkout();
  for (const e of decideChanges([create('feedback', feedbackItem())], state)) evolve(state, e);
  for (const e of decideChanges([update('feedback', feedbackItem({ difficulty: 'harder_than_expected' }), 1)], state)) evolve(state, e);
  const events = decideChanges([del('workout', WORKOUT, 1)], state);
  assert.equal(events, [
    { type: 'workout.deleted', data: { id: WORKOUT, revision: 2 } },
    { type: 'feedback.deleted', data: { id: WORKOUT, revision: 3 } },
  ]);
  for (const e of events) evolve(state, e);
  assert.is(live(state, 'feedback', WORKOUT), null);
  assert.is(live(state, 'workout', WORKOUT), null);
});

test('deleting a workout without feedback yields only workout.deleted', () => {
  assert.equal(decideChanges([del('workout', WORKOUT, 1)], withWorkout()), [{ type: 'workout.deleted', data: { id: WORKOUT, revision: 2 } }]);
});

test('a drop set may name the position of another set of the exercise as its parent', () => {
  const item = workoutItem({
    id: OTHER_WORKOUT,
    exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type: 'drop_set', parent_position: 0, weight_kg: 60 })] })],
  });
  assert.is(decideChanges([create('workout', item)], withWorkout()).length, 1);
});

test('a drop set whose parent_position names no set of the exercise is invalid_input', () => {
  const item = workoutItem({
    id: OTHER_WORKOUT,
    exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type: 'drop_set', parent_position: 7 })] })],
  });
  assertRefused(() => decideChanges([create('workout', item)], withWorkout()), 'invalid_input', 'item.exercises.0.sets.1.parent_position');
});

test('a drop set whose parent_position names itself is invalid_input', () => {
  const item = workoutItem({
    id: OTHER_WORKOUT,
    exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type: 'drop_set', parent_position: 1 })] })],
  });
  assertRefused(() => decideChanges([create('workout', item)], withWorkout()), 'invalid_input', 'item.exercises.0.sets.1.parent_position');
});

test('drop sets that name each other as parents are invalid_input; a chain of drop sets is fine', () => {
  const drop = (position: number, parent_position: number) => setItem({ position, set_number: position + 1, set_type: 'drop_set', parent_position, weight_kg: 60 - position });
  const loop = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: [setItem(), drop(1, 2), drop(2, 1)] })] });
  assertRefused(() => decideChanges([create('workout', loop)], withWorkout()), 'invalid_input', 'item.exercises.0.sets.1.parent_position');
  const chain = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: [setItem(), drop(1, 0), drop(2, 1)] })] });
  assert.is(decideChanges([create('workout', chain)], withWorkout()).length, 1);
});

test('parent_position on a set that is not a drop set is invalid_input', () => {
  for (const set_type of ['normal', 'warmup', 'failure'] as const) {
    const item = workoutItem({
      id: OTHER_WORKOUT,
      exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type, parent_position: 0 })] })],
    });
    assertRefused(() => decideChanges([create('workout', item)], withWorkout()), 'invalid_input', 'item.exercises.0.sets.1.parent_position');
  }
});

// ---------------------------------------------------------------------------------------------
// Fitness preferences

test("fitness_preferences must share the athlete's id", () => {
  const state = initialRecordState(ATHLETE);
  assertRefused(() => decideChanges([create('fitness_preferences', fitnessPreferencesItem({ id: uid(0xb0) }))], state), 'invalid_input', 'item.id');
  assert.is(decideChanges([create('fitness_preferences', fitnessPreferencesItem())], state)[0]!.type, 'fitness_preferences.created');
});

// ---------------------------------------------------------------------------------------------
// Batches

test('a batch is all-or-nothing: an invalid third change refuses it and leaves the state untouched', () => {
  const state = stateAfter([create('meal', mealItem())]);
  const before = snapshot(state);
  const batch = [
    create('exercise', exerciseItem()),
    update('meal', mealItem({ name: 'Lunch' }), 1),
    create('checkin', checkinItem({ sleep_quality: 9 })),
  ];
  let events: RecordEvent[] | undefined;
  const error = assertRefused(() => (events = decideChanges(batch, state)), 'invalid_input', 'changes[2].item.sleep_quality');
  assert.ok(error instanceof DomainError);
  assert.is(events, undefined);
  assert.equal(snapshot(state), before);
  assert.is(live(state, 'exercise', BENCH), null);
  assert.equal(live(state, 'meal', MEAL), { revision: 1, deleted: false });
});

test('later changes in a batch see earlier ones: a new exercise, then a workout that uses it', () => {
  const state = initialRecordState(ATHLETE);
  const events = decideChanges(
    [create('exercise', exerciseItem()), create('workout', workoutItem()), create('feedback', feedbackItem()), update('workout', workoutItem({ title: 'Push' }), 1)],
    state,
  );
  assert.equal(events.map((e) => [e.type, revisionOf(e)]), [
    ['exercise.created', 1],
    ['workout.created', 1],
    ['feedback.created', 1],
    ['workout.updated', 2],
  ]);
  // Deciding did not fold anything into the caller's state.
  assert.is(state.items.size, 0);
});

test('a batch that touches the same item twice sees its own revisions', () => {
  const state = stateAfter([create('meal', mealItem())]);
  assertRefused(() => decideChanges([update('meal', mealItem({ name: 'A' }), 1), update('meal', mealItem({ name: 'B' }), 1)], state), 'revision_conflict', 'changes[1].base_revision');
  const events = decideChanges([update('meal', mealItem({ name: 'A' }), 1), update('meal', mealItem({ name: 'B' }), 2), del('meal', MEAL, 3)], state);
  assert.equal(events.map(revisionOf), [2, 3, 4]);
});

test('property: deciding any batch, decided or refused at any change, leaves the state as it was', () => {
  // Every map of the state is written by some change here: a date moved and taken, an exercise
  // renamed, deleted in use or not, a workout with its source and feedback, a routine and a goal.
  const state = stateAfter(
    [create('exercise', exerciseItem()), create('exercise', exerciseItem({ id: SQUAT, name: 'Squat' }))],
    [create('workout', workoutItem()), create('routine', routineItem()), create('goal', goalItem()), create('checkin', checkinItem()), create('meal', mealItem())],
    [create('feedback', feedbackItem())],
  );
  const pool: RecordChange[] = [
    del('workout', WORKOUT, 1),
    del('routine', ROUTINE, 1),
    del('goal', GOAL, 1),
    del('exercise', BENCH, 1),
    del('exercise', SQUAT, 1),
    update('exercise', exerciseItem({ name: 'Bench' }), 1),
    update('checkin', checkinItem({ date: '2026-01-09' }), 1),
    create('checkin', checkinItem({ id: CHECKIN_B })),
    del('checkin', CHECKIN_A, 1),
    create('workout', workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ exercise_id: SQUAT })], source: { app: 'hevy', ref: 'w-1' } })),
    update('goal', goalItem({ exercise_id: SQUAT }), 1),
    update('meal', mealItem({ name: 'Lunch' }), 1),
    create('meal', mealItem({ id: uid(51), calories_kcal: -5 })),
  ];
  const before = snapshot(state);
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 8 }), (batch) => {
      try {
        decideChanges(batch, state);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
      assert.equal(snapshot(state), before);
    }),
    { numRuns: 300 },
  );
});

// ---------------------------------------------------------------------------------------------
// Property: revisions count changes

type Step = { id: number; kind: 'meal' | 'equipment_setup'; action: 'update' | 'delete'; name: string };

const stepArb: fc.Arbitrary<Step> = fc.record({
  id: fc.integer({ min: 0, max: 3 }),
  kind: fc.constantFrom('meal' as const, 'equipment_setup' as const),
  action: fc.constantFrom('update' as const, 'delete' as const),
  name: fc.string({ minLength: 1, maxLength: 20 }),
});

test('property: every revision is 1 + the changes to the item, and revisions strictly increase per item', () => {
  fc.assert(
    fc.property(fc.array(fc.array(stepArb, { minLength: 1, maxLength: 4 }), { maxLength: 25 }), (batches) => {
      // The model: per item, how it stands and how many changes (after creation) it has had.
      const model = new Map<string, { revision: number; deleted: boolean; changes: number }>();
      const seenRevisions = new Map<string, number[]>();
      const state = initialRecordState(ATHLETE);

      for (const steps of batches) {
        const changes: RecordChange[] = [];
        const scratch = new Map([...model].map(([k, v]) => [k, { ...v }]));
        for (const step of steps) {
          const id = uid(0x100 + step.id);
          const key = itemKey(step.kind, id);
          const item = step.kind === 'meal' ? mealItem({ id, name: step.name }) : equipmentSetupItem({ id, name: step.name });
          const current = scratch.get(key);
          // Turn the step into a change that is valid for the item as it stands.
          if (!current) {
            changes.push(create(step.kind, item));
            scratch.set(key, { revision: 1, deleted: false, changes: 0 });
          } else if (current.deleted) {
            continue;
          } else if (step.action === 'update') {
            changes.push(update(step.kind, item, current.revision));
            scratch.set(key, { revision: current.revision + 1, deleted: false, changes: current.changes + 1 });
          } else {
            changes.push(del(step.kind, id, current.revision));
            scratch.set(key, { revision: current.revision + 1, deleted: true, changes: current.changes + 1 });
          }
        }
        if (changes.length === 0) continue;
        const events = decideChanges(changes, state);
        assert.is(events.length, changes.length);
        for (const event of events) {
          evolve(state, event);
          const key = itemKey(event.type.startsWith('meal.') ? 'meal' : 'equipment_setup', idOf(event));
          seenRevisions.set(key, [...(seenRevisions.get(key) ?? []), revisionOf(event)]);
        }
        for (const [k, v] of scratch) model.set(k, v);
      }

      assert.is(state.items.size, model.size);
      for (const [key, expected] of model) {
        const folded = state.items.get(key);
        assert.ok(folded, `${key} is in the folded state`);
        assert.is(folded.revision, 1 + expected.changes, `${key} revision`);
        assert.is(folded.deleted, expected.deleted, `${key} deleted`);
        const revisions = seenRevisions.get(key)!;
        assert.ok(revisions.every((r, i) => i === 0 || r > revisions[i - 1]!), `${key} revisions ${revisions} increase`);
        assert.is(revisions[0], 1);
      }
    }),
    { numRuns: 200 },
  );
});

// ---------------------------------------------------------------------------------------------
// expect: a dependency asserted, not changed

const expectAt = (kind: RecordKind, id: string, revision: number): RecordChange => ({ op: 'expect', kind, id, revision });

test('expect: given an exercise at revision 1, when a batch expects it at 1 and creates a workout with it, then only the workout is written', () => {
  const state = stateAfter([create('exercise', exerciseItem())]);
  const events = decideChanges([expectAt('exercise', BENCH, 1), create('workout', workoutItem())], state);
  assert.equal(events.map((e) => e.type), ['workout.created']);
});

test('expect: given the exercise was renamed since (revision 2), when a batch expects revision 1, then it is refused as a revision conflict at the expectation', () => {
  const state = stateAfter([create('exercise', exerciseItem())], [update('exercise', exerciseItem({ name: 'Bench' }), 1)]);
  const error = assertRefused(() => decideChanges([expectAt('exercise', BENCH, 1), create('workout', workoutItem())], state), 'revision_conflict', 'changes[0].revision');
  assert.equal(error.issues, [{ path: 'changes[0].revision', message: 'current revision is 2' }]);
});

test('expect: given a deleted or never-created item, when a batch expects it, then it is refused as not found', () => {
  const state = stateAfter([create('meal', mealItem())], [del('meal', MEAL, 1)]);
  assertRefused(() => decideChanges([expectAt('meal', MEAL, 1)], state), 'not_found', 'id');
  assertRefused(() => decideChanges([expectAt('meal', MISSING, 1)], state), 'not_found', 'id');
});

test('expect: a later change in the same batch is seen, so expecting what the batch itself changed is a conflict', () => {
  const state = stateAfter([create('meal', mealItem())]);
  assertRefused(() => decideChanges([update('meal', mealItem({ name: 'Lunch' }), 1), expectAt('meal', MEAL, 1)], state), 'revision_conflict', 'changes[1].revision');
  assert.equal(decideChanges([update('meal', mealItem({ name: 'Lunch' }), 1), expectAt('meal', MEAL, 2)], state).map((e) => e.type), ['meal.updated']);
});

// ---------------------------------------------------------------------------------------------
// itemImages: bodies as they are, for undo and for review

test('itemImages: given created, updated and deleted items, then each asked item has its latest body, revision, first creation and last change', () => {
  const at = (i: number) => `2026-01-0${i}T10:00:00.000Z`;
  const batches: RecordChange[][] = [
    [create('meal', mealItem()), create('checkin', checkinItem())],
    [update('meal', mealItem({ name: 'Lunch' }), 1)],
    [del('checkin', CHECKIN_A, 1)],
    [create('meal', mealItem({ id: uid(51), name: 'Not asked for' }))],
  ];
  const state = initialRecordState(ATHLETE);
  const log: Array<{ type: string; data: unknown; occurred_at: string }> = [];
  batches.forEach((batch, i) => {
    for (const event of decideChanges(batch, state)) {
      evolve(state, event);
      log.push({ ...event, occurred_at: at(i + 1) });
    }
  });
  const images = itemImages(log, new Set([itemKey('meal', MEAL), itemKey('checkin', CHECKIN_A), itemKey('goal', GOAL)]));
  assert.equal([...images.keys()].sort(), [itemKey('checkin', CHECKIN_A), itemKey('meal', MEAL)]);
  assert.equal(images.get(itemKey('meal', MEAL)), { kind: 'meal', id: MEAL, revision: 2, item: mealItem({ name: 'Lunch' }), created_at: at(1), updated_at: at(2) });
  assert.equal(images.get(itemKey('checkin', CHECKIN_A)), { kind: 'checkin', id: CHECKIN_A, revision: 2, item: null, created_at: at(1), updated_at: at(3) });
});

// ---------------------------------------------------------------------------------------------
// restore: a deleted item brought back (undo), as a new revision that keeps its creation time

const restore = (kind: RecordKind, item: unknown, base_revision: number, created_at = '2026-01-05T09:06:00.000Z'): RecordChange => ({ op: 'restore', kind, item, base_revision, created_at });

test('restore: given a workout deleted with its feedback, when both are restored, then each is created again at the next revision, keeping its creation time', () => {
  const state = stateAfter([create('exercise', exerciseItem())], [create('workout', workoutItem())], [create('feedback', feedbackItem())], [del('workout', WORKOUT, 1)]);
  assert.equal(live(state, 'workout', WORKOUT), null);
  const events = decideChanges([restore('workout', workoutItem(), 2), restore('feedback', feedbackItem(), 2, '2026-01-05T09:10:00.000Z')], state);
  assert.equal(events, [
    { type: 'workout.created', data: { item: workoutItem(), revision: 3, created_at: '2026-01-05T09:06:00.000Z' } },
    { type: 'feedback.created', data: { item: feedbackItem(), revision: 3, created_at: '2026-01-05T09:10:00.000Z' } },
  ]);
  for (const e of events) evolve(state, e);
  assert.equal(live(state, 'workout', WORKOUT), { revision: 3, deleted: false });
});

test('restore: a live item, an unknown one, a stale revision and a bad creation time are refused', () => {
  const state = stateAfter([create('meal', mealItem())], [create('checkin', checkinItem())], [del('checkin', CHECKIN_A, 1)]);
  assertRefused(() => decideChanges([restore('meal', mealItem(), 1)], state), 'already_exists', 'item.id');
  assertRefused(() => decideChanges([restore('goal', goalItem(), 1)], state), 'not_found', 'item.id');
  assertRefused(() => decideChanges([restore('checkin', checkinItem(), 1)], state), 'revision_conflict', 'base_revision');
  assertRefused(() => decideChanges([restore('checkin', checkinItem(), 2, 'yesterday')], state), 'invalid_input', 'created_at');
});

test('restore: the item rules still hold, so a check-in whose date was taken since cannot come back', () => {
  const state = stateAfter([create('checkin', checkinItem())], [del('checkin', CHECKIN_A, 1)], [create('checkin', checkinItem({ id: CHECKIN_B }))]);
  assertRefused(() => decideChanges([restore('checkin', checkinItem(), 2)], state), 'date_taken', 'item.date');
});

test.run();
