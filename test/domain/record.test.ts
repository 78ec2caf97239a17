// The record decider, pure: decideChanges turns a batch of changes into events or refuses it;
// evolve folds the events back into the state later decisions are made against. Each case reads
// given record events, when a batch, then events or a refusal (test/support/decider-spec.ts).
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordEvent } from '../../contracts/events.ts';
import { recordKinds, type RecordItem, type RecordKind } from '../../contracts/record.ts';
import { DomainError } from '../../services/domain/errors.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import { created, createdWith, deleted, recordDecider, updated } from '../support/deciders.ts';
import { thrown } from '../support/thrown.ts';
import { decideChanges, evolve, initialRecordState, itemImages, itemKey, live, type RecordChange, type RecordState } from '../../services/domain/record.ts';

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

/** The record decider, specified: given these record events, when this batch is decided, then these events or this refusal. */
const record = DeciderSpecification.for(recordDecider(ATHLETE));

/** Bench Press in the catalog, and one workout (revision 1) that uses it. */
const WITH_WORKOUT = [created('exercise', exerciseItem()), created('workout', workoutItem())];
/** A meal at revision 2: created, then renamed Lunch. */
const MEAL_AT_2 = [created('meal', mealItem()), updated('meal', mealItem({ name: 'Lunch' }), 2)];

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
  test(`given an exercise and a workout, when a valid ${kind} is created, then ${kind}.created at revision 1, and it is live`, () => {
    const item = validItems[kind]();
    const events = record
      .given(...WITH_WORKOUT)
      .when([create(kind, item)])
      .then([created(kind, item)]);
    assert.equal(live(record.given(...WITH_WORKOUT, ...events).state(), kind, item.id), { revision: 1, deleted: false });
  });
}

test('when instants are written with an offset or without milliseconds, then they are kept in UTC as toISOString writes them, so they order as text', () => {
  record
    .given(...WITH_WORKOUT)
    .when([create('meal', mealItem({ eaten_at: '2026-01-05T14:30:00+02:00' }))])
    .then(([meal]) => {
      assert.is((meal!.data as { item: RecordItem<'meal'> }).item.eaten_at, '2026-01-05T12:30:00.000Z');
    });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', workoutItem({ id: uid(77), started_at: '2026-01-04T23:30:00-05:00', ended_at: '2026-01-05T05:00:00Z' }))])
    .then(([workout]) => {
      const { started_at, ended_at } = (workout!.data as { item: RecordItem<'workout'> }).item;
      assert.equal([started_at, ended_at], ['2026-01-05T04:30:00.000Z', '2026-01-05T05:00:00.000Z']);
    });
  record
    .given(...WITH_WORKOUT)
    .when([create('body_measurement', { id: uid(78), measured_at: '2026-01-05T08:00:00.5+01:00', metric: 'waist', value: 0.8 })])
    .then(([measurement]) => {
      assert.is((measurement!.data as { item: RecordItem<'body_measurement'> }).item.measured_at, '2026-01-05T07:00:00.500Z');
    });
});

test('given a meal at revision 1, when it is updated against revision 1, then meal.updated at revision 2; and against 2 after that, then revision 3', () => {
  const first = record
    .given(created('meal', mealItem()))
    .when([update('meal', mealItem({ name: 'Lunch' }), 1)])
    .then([updated('meal', mealItem({ name: 'Lunch' }), 2)]);
  record
    .given(created('meal', mealItem()), ...first)
    .when([update('meal', mealItem({ protein_g: 50 }), 2)])
    .then([updated('meal', mealItem({ protein_g: 50 }), 3)]);
});

test('given a meal at revision 2, when it is deleted against revision 2, then meal.deleted at revision 3', () => {
  record
    .given(...MEAL_AT_2)
    .when([del('meal', MEAL, 2)])
    .then([deleted('meal', MEAL, 3)]);
});

test('given a meal at revision 2, when it is updated against revision 1, then it is refused: revision_conflict, naming revision 2', () => {
  const error = record
    .given(...MEAL_AT_2)
    .when([update('meal', mealItem({ name: 'Dinner' }), 1)])
    .thenRefuses('revision_conflict', { at: 'base_revision' });
  assert.match(error.message, /revision 2/);
  assert.equal(error.issues, [{ path: 'base_revision', message: 'current revision is 2' }]);
});

test('given a meal at revision 2, when it is deleted against a stale (or future) revision, then it is refused: revision_conflict, naming revision 2', () => {
  for (const stale of [1, 3]) {
    const error = record
      .given(...MEAL_AT_2)
      .when([del('meal', MEAL, stale)])
      .thenRefuses('revision_conflict', { at: 'base_revision' });
    assert.equal(error.issues[0]!.message, 'current revision is 2');
  }
});

test('given no such meal, when one is updated or deleted, then it is refused: not_found', () => {
  record
    .given(...WITH_WORKOUT)
    .when([update('meal', mealItem(), 1)])
    .thenRefuses('not_found');
  record
    .given(...WITH_WORKOUT)
    .when([del('meal', MEAL, 1)])
    .thenRefuses('not_found', { at: 'id' });
  // The id exists, but as another kind of item.
  record
    .given(...WITH_WORKOUT)
    .when([del('meal', WORKOUT, 1)])
    .thenRefuses('not_found');
});

test('given a deleted meal, when it is updated or deleted, then it is refused: not_found', () => {
  const gone = [created('meal', mealItem()), deleted('meal', MEAL, 2)];
  record
    .given(...gone)
    .when([update('meal', mealItem(), 2)])
    .thenRefuses('not_found');
  record
    .given(...gone)
    .when([del('meal', MEAL, 2)])
    .thenRefuses('not_found');
});

test('given a deleted item, when it is updated with a body that would now break a rule of the record, then it is refused: not_found', () => {
  // The check-in was deleted and its date taken by another one since.
  record
    .given(created('checkin', checkinItem()), deleted('checkin', CHECKIN_A, 2), created('checkin', checkinItem({ id: CHECKIN_B })))
    .when([update('checkin', checkinItem(), 2)])
    .thenRefuses('not_found');
  // The feedback went with its workout.
  record
    .given(...WITH_WORKOUT, created('feedback', feedbackItem()), deleted('workout', WORKOUT, 2), deleted('feedback', WORKOUT, 2))
    .when([update('feedback', feedbackItem({ next_time_intent: 'review' }), 1)])
    .thenRefuses('not_found');
});

test('given a check-in moved by another client (revision 2), when a stale client moves it onto a taken date against revision 1, then it is refused: revision_conflict, not date_taken', () => {
  // Another client moved check-in B to the 6th (revision 2); a stale client moves it to the 5th, which A holds.
  record
    .given(
      created('checkin', checkinItem()),
      created('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-07' })),
      updated('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-06' }), 2),
    )
    .when([update('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-05' }), 1)])
    .thenRefuses('revision_conflict');
});

test('given a meal, when its id is created again, then it is refused: already_exists', () => {
  record
    .given(created('meal', mealItem()))
    .when([create('meal', mealItem({ name: 'Again' }))])
    .thenRefuses('already_exists', { at: 'item.id' });
});

test('given a meal that was deleted, when its id is created again, then it is refused: already_exists', () => {
  record
    .given(created('meal', mealItem()), deleted('meal', MEAL, 2))
    .when([create('meal', mealItem())])
    .thenRefuses('already_exists', { at: 'item.id' });
});

// ---------------------------------------------------------------------------------------------
// Carrying items over from a RepLedger export

const CARRIED_TIMES = { created_at: '2026-01-05T08:00:00.000Z', updated_at: '2026-02-01T09:30:00.000Z' };
const carry = (kind: RecordKind, item: unknown, revision: number): RecordChange => ({ op: 'carry', kind, item, revision, ...CARRIED_TIMES });

test('when a meal is carried over at revision 4, then it keeps its revision and times; given it, when it is updated against 4, then revision 5', () => {
  const events = record
    .given(created('exercise', exerciseItem()))
    .when([carry('meal', mealItem(), 4)])
    .then([createdWith('meal', mealItem(), 4, CARRIED_TIMES)]);
  record
    .given(created('exercise', exerciseItem()), ...events)
    .when([update('meal', mealItem({ name: 'Lunch' }), 4)])
    .then([updated('meal', mealItem({ name: 'Lunch' }), 5)]);
});

test('when an id the record holds or held is carried over, then it is refused: already_exists; a carried item obeys the rules of a create', () => {
  record
    .given(...WITH_WORKOUT)
    .when([carry('workout', workoutItem(), 2)])
    .thenRefuses('already_exists', { at: 'item.id' });
  record
    .given(created('meal', mealItem()), deleted('meal', MEAL, 2))
    .when([carry('meal', mealItem(), 2)])
    .thenRefuses('already_exists', { at: 'item.id' });
  record
    .given()
    .when([carry('workout', workoutItem(), 3)])
    .thenRefuses('unknown_reference', { at: 'item.exercises.0.exercise_id' });
  record
    .given()
    .when([{ ...carry('meal', mealItem(), 1), updated_at: 'yesterday' } as RecordChange])
    .thenRefuses('invalid_input', { at: 'updated_at' });
  record
    .given()
    .when([carry('meal', mealItem(), 0)])
    .thenRefuses('invalid_input', { at: 'revision' });
});

test("itemImages takes a carried item's times from its event, not from when the event was written", () => {
  const events = [createdWith('meal', mealItem(), 3, CARRIED_TIMES)];
  const images = itemImages(events.map((e) => ({ type: e.type, data: e.data, occurred_at: '2026-11-26T11:00:00.000Z' })));
  assert.equal(images.get(itemKey('meal', MEAL)), { kind: 'meal', id: MEAL, revision: 3, item: mealItem(), ...CARRIED_TIMES });
});

test('given a workout that uses an exercise, when the exercise is deleted, then it is refused: not_supported; when the workout goes first in the batch, then both are deleted', () => {
  record
    .given(...WITH_WORKOUT)
    .when([del('exercise', BENCH, 1)])
    .thenRefuses('not_supported');
  // In one batch: the workout goes first, then the exercise it used (what an undo does).
  record
    .given(...WITH_WORKOUT)
    .when([del('workout', WORKOUT, 1), del('exercise', BENCH, 1)])
    .then([deleted('workout', WORKOUT, 2), deleted('exercise', BENCH, 2)]);
});

// ---------------------------------------------------------------------------------------------
// Invalid items

test('when a workout that starts after it ends is created, then it is refused: invalid_input at item.started_at', () => {
  const item = workoutItem({ started_at: '2026-01-05T10:00:00.000Z', ended_at: '2026-01-05T09:00:00.000Z' });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', item)])
    .thenRefuses('invalid_input', { at: 'item.started_at' });
});

test('when a workout with a set of weight -1 is created, then it is refused: invalid_input at its path', () => {
  const item = workoutItem({
    id: OTHER_WORKOUT,
    exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, weight_kg: -1 })] })],
  });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', item)])
    .thenRefuses('invalid_input', { at: 'item.exercises.0.sets.1.weight_kg' });
});

test('when a workout exercise has 200 sets, then the workout is created; with 201, then it is refused: invalid_input', () => {
  const sets = (n: number) => Array.from({ length: n }, (_, i) => setItem({ position: i, set_number: i + 1 }));
  const ok = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: sets(200) })] });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', ok)])
    .then([created('workout', ok)]);
  const tooMany = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: sets(201) })] });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', tooMany)])
    .thenRefuses('invalid_input', { at: 'item.exercises.0.sets' });
});

test('when a meal with an extra field is created, then it is refused: invalid_input, naming the field', () => {
  const error = record
    .given()
    .when([create('meal', { ...mealItem(), rating: 5 })])
    .thenRefuses('invalid_input');
  assert.ok(
    error.issues.some((i) => i.path === 'item' && /rating/.test(i.message)),
    JSON.stringify(error.issues),
  );
});

test('given a meal, when it is updated with an invalid body, then it is refused: invalid_input, not applied', () => {
  record
    .given(created('meal', mealItem()))
    .when([update('meal', mealItem({ calories_kcal: -5 }), 1)])
    .thenRefuses('invalid_input', { at: 'item.calories_kcal' });
});

test('when a change inside a batch is invalid, then the issue paths carry the change index', () => {
  const error = record
    .given(...WITH_WORKOUT)
    .when([create('meal', mealItem()), create('body_measurement', bodyMeasurementItem({ value: 0 }))])
    .thenRefuses('invalid_input');
  assert.equal(
    error.issues.map((i) => i.path),
    ['changes[1].item.value'],
  );
});

// ---------------------------------------------------------------------------------------------
// References

test('when a workout names an exercise not in the catalog, then it is refused: unknown_reference', () => {
  const item = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem(), workoutExerciseItem({ exercise_id: MISSING, exercise_order: 1 })] });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', item)])
    .thenRefuses('unknown_reference', { at: 'item.exercises.1.exercise_id' });
});

test('when a routine names an exercise not in the catalog, then it is refused: unknown_reference', () => {
  const item = routineItem({ exercises: [{ position: 0, exercise_id: MISSING, sets: 3, reps: '5', target_rpe: null, rest_seconds: null }] });
  record
    .given(...WITH_WORKOUT)
    .when([create('routine', item)])
    .thenRefuses('unknown_reference', { at: 'item.exercises.0.exercise_id' });
});

test('when a goal names an exercise not in the catalog, then it is refused: unknown_reference', () => {
  record
    .given(...WITH_WORKOUT)
    .when([create('goal', goalItem({ exercise_id: MISSING }))])
    .thenRefuses('unknown_reference', { at: 'item.exercise_id' });
});

test('when feedback is given for a workout that does not exist, then it is refused: unknown_reference', () => {
  record
    .given(...WITH_WORKOUT)
    .when([create('feedback', feedbackItem({ id: MISSING }))])
    .thenRefuses('unknown_reference', { at: 'item.id' });
});

test('given a deleted workout, when feedback is given for it, then it is refused: unknown_reference', () => {
  record
    .given(...WITH_WORKOUT, deleted('workout', WORKOUT, 2))
    .when([create('feedback', feedbackItem())])
    .thenRefuses('unknown_reference', { at: 'item.id' });
});

// ---------------------------------------------------------------------------------------------
// Goals

test('when a goal is created, then its unit must fit its type, or it is refused: invalid_input', () => {
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
    record
      .given(...WITH_WORKOUT)
      .when([create('goal', ok)])
      .then(([event]) => assert.is(event!.type, 'goal.created', `${goal_type} in ${good}`));
    const wrong = goalItem({ ...base, target_unit: bad as RecordItem<'goal'>['target_unit'] });
    record
      .given(...WITH_WORKOUT)
      .when([create('goal', wrong)])
      .thenRefuses('invalid_input', { at: 'item.target_unit' });
  }
});

test('when a target_1rm goal names no exercise, then it is refused: invalid_input', () => {
  record
    .given(...WITH_WORKOUT)
    .when([create('goal', goalItem({ exercise_id: null }))])
    .thenRefuses('invalid_input', { at: 'item.exercise_id' });
});

test('when a goal is created, then achieved_at is set exactly when it is achieved, or it is refused: invalid_input', () => {
  const at = '2026-02-01T10:00:00.000Z';
  const goal = record.given(...WITH_WORKOUT);
  goal.when([create('goal', goalItem({ status: 'achieved', achieved_at: at }))]).then((events) => assert.is(events.length, 1));
  goal.when([create('goal', goalItem({ status: 'archived', achieved_at: null }))]).then((events) => assert.is(events.length, 1));
  goal.when([create('goal', goalItem({ status: 'achieved', achieved_at: null }))]).thenRefuses('invalid_input', { at: 'item.achieved_at' });
  goal.when([create('goal', goalItem({ status: 'active', achieved_at: at }))]).thenRefuses('invalid_input', { at: 'item.achieved_at' });
  goal.when([create('goal', goalItem({ status: 'archived', achieved_at: at }))]).thenRefuses('invalid_input', { at: 'item.achieved_at' });
});

test("when a goal's target vanishes in kilograms, then it is refused: the canonical target is > 0 too (spec 2.6)", () => {
  const goal = record.given(...WITH_WORKOUT);
  goal.when([create('goal', goalItem({ target_value: 5e-324, target_unit: 'lbs' }))]).thenRefuses('invalid_input', { at: 'item.target_value' });
  goal
    .when([create('goal', goalItem({ target_value: 5e-324, target_unit: 'kg' }))])
    .then((events) => assert.is(events.length, 1, 'in kilograms it is kept as set'));
  goal.when([create('goal', goalItem({ target_value: 0.5, target_unit: 'lbs' }))]).then((events) => assert.is(events.length, 1));
});

// ---------------------------------------------------------------------------------------------
// Body measurements

test('when body fat over 100 is measured, then it is refused: invalid_input, a percentage; other metrics keep their own bound', () => {
  const measure = record.given(...WITH_WORKOUT);
  measure.when([create('body_measurement', bodyMeasurementItem({ metric: 'body_fat', value: 100.5 }))]).thenRefuses('invalid_input', { at: 'item.value' });
  measure.when([create('body_measurement', bodyMeasurementItem({ metric: 'body_fat', value: 100 }))]).then((events) => assert.is(events.length, 1));
  measure.when([create('body_measurement', bodyMeasurementItem({ metric: 'waist', value: 500 }))]).then((events) => assert.is(events.length, 1));
});

// ---------------------------------------------------------------------------------------------
// Check-ins: one per date

test('given a check-in on a date, when another is created on that date, then it is refused: date_taken', () => {
  record
    .given(created('checkin', checkinItem()))
    .when([create('checkin', checkinItem({ id: CHECKIN_B }))])
    .thenRefuses('date_taken', { at: 'item.date' });
});

test("given check-ins on two dates, when one is moved onto the other's, then it is refused: date_taken; when it keeps its own date, then it is updated", () => {
  const two = record.given(created('checkin', checkinItem()), created('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-06' })));
  two.when([update('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-05' }), 1)]).thenRefuses('date_taken', { at: 'item.date' });
  two.when([update('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-06', energy: 5 }), 1)]).then(([event]) => assert.is(event!.type, 'checkin.updated'));
});

test('given a check-in that was deleted, when another is created on its date, then it is created', () => {
  record
    .given(created('checkin', checkinItem()), deleted('checkin', CHECKIN_A, 2))
    .when([create('checkin', checkinItem({ id: CHECKIN_B }))])
    .then(([event]) => assert.is(event!.type, 'checkin.created'));
});

test('given a check-in moved to another date, when check-ins are created on its old and new dates, then the old date is free and the new one taken', () => {
  const moved = record.given(created('checkin', checkinItem()), updated('checkin', checkinItem({ date: '2026-01-09' }), 2));
  moved.when([create('checkin', checkinItem({ id: CHECKIN_B, date: '2026-01-05' }))]).then(([event]) => assert.is(event!.type, 'checkin.created'));
  moved.when([create('checkin', checkinItem({ id: CHECKIN_C, date: '2026-01-09' }))]).thenRefuses('date_taken');
});

test('given a check-in, when a batch moves it and creates another on the date it leaves, then both are decided', () => {
  record
    .given(created('checkin', checkinItem()))
    .when([update('checkin', checkinItem({ date: '2026-01-04' }), 1), create('checkin', checkinItem({ id: CHECKIN_B }))])
    .then((events) =>
      assert.equal(
        events.map((e) => e.type),
        ['checkin.updated', 'checkin.created'],
      ),
    );
});

// ---------------------------------------------------------------------------------------------
// Workouts, feedback, drop sets

test('given a workout with feedback at revision 2, when the workout is deleted, then its feedback is deleted too', () => {
  const history = [...WITH_WORKOUT, created('feedback', feedbackItem()), updated('feedback', feedbackItem({ difficulty: 'harder_than_expected' }), 2)];
  const events = record
    .given(...history)
    .when([del('workout', WORKOUT, 1)])
    .then([deleted('workout', WORKOUT, 2), deleted('feedback', WORKOUT, 3)]);
  const after = record.given(...history, ...events).state();
  assert.is(live(after, 'feedback', WORKOUT), null);
  assert.is(live(after, 'workout', WORKOUT), null);
});

test('given a workout without feedback, when it is deleted, then only workout.deleted', () => {
  record
    .given(...WITH_WORKOUT)
    .when([del('workout', WORKOUT, 1)])
    .then([deleted('workout', WORKOUT, 2)]);
});

test('when a drop set names the position of another set of the exercise as its parent, then the workout is created', () => {
  const item = workoutItem({
    id: OTHER_WORKOUT,
    exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type: 'drop_set', parent_position: 0, weight_kg: 60 })] })],
  });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', item)])
    .then((events) => assert.is(events.length, 1));
});

test("when a drop set's parent_position names no set of the exercise, then it is refused: invalid_input", () => {
  const item = workoutItem({
    id: OTHER_WORKOUT,
    exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type: 'drop_set', parent_position: 7 })] })],
  });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', item)])
    .thenRefuses('invalid_input', { at: 'item.exercises.0.sets.1.parent_position' });
});

test("when a drop set's parent_position names itself, then it is refused: invalid_input", () => {
  const item = workoutItem({
    id: OTHER_WORKOUT,
    exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type: 'drop_set', parent_position: 1 })] })],
  });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', item)])
    .thenRefuses('invalid_input', { at: 'item.exercises.0.sets.1.parent_position' });
});

test('when drop sets name each other as parents, then it is refused: invalid_input; when they form a chain, then the workout is created', () => {
  const drop = (position: number, parent_position: number) =>
    setItem({ position, set_number: position + 1, set_type: 'drop_set', parent_position, weight_kg: 60 - position });
  const loop = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: [setItem(), drop(1, 2), drop(2, 1)] })] });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', loop)])
    .thenRefuses('invalid_input', { at: 'item.exercises.0.sets.1.parent_position' });
  const chain = workoutItem({ id: OTHER_WORKOUT, exercises: [workoutExerciseItem({ sets: [setItem(), drop(1, 0), drop(2, 1)] })] });
  record
    .given(...WITH_WORKOUT)
    .when([create('workout', chain)])
    .then((events) => assert.is(events.length, 1));
});

test('when a set that is not a drop set has a parent_position, then it is refused: invalid_input', () => {
  for (const set_type of ['normal', 'warmup', 'failure'] as const) {
    const item = workoutItem({
      id: OTHER_WORKOUT,
      exercises: [workoutExerciseItem({ sets: [setItem(), setItem({ position: 1, set_number: 2, set_type, parent_position: 0 })] })],
    });
    record
      .given(...WITH_WORKOUT)
      .when([create('workout', item)])
      .thenRefuses('invalid_input', { at: 'item.exercises.0.sets.1.parent_position' });
  }
});

// ---------------------------------------------------------------------------------------------
// Fitness preferences

test("when fitness preferences are created under another id than the athlete's, then they are refused: invalid_input; under the athlete's, then created", () => {
  record
    .given()
    .when([create('fitness_preferences', fitnessPreferencesItem({ id: uid(0xb0) }))])
    .thenRefuses('invalid_input', { at: 'item.id' });
  record
    .given()
    .when([create('fitness_preferences', fitnessPreferencesItem())])
    .then(([event]) => assert.is(event!.type, 'fitness_preferences.created'));
});

// ---------------------------------------------------------------------------------------------
// Batches

test('a batch is all-or-nothing: an invalid third change refuses it and leaves the state untouched', () => {
  // Against the state itself, not through the kit: this is what the kit's own check (a decision
  // leaves the state it was given as it was) relies on, asserted here in so many words.
  const state = record.given(created('meal', mealItem())).state();
  const before = snapshot(state);
  const batch = [create('exercise', exerciseItem()), update('meal', mealItem({ name: 'Lunch' }), 1), create('checkin', checkinItem({ sleep_quality: 9 }))];
  let events: RecordEvent[] | undefined;
  const error = thrown(DomainError, () => (events = decideChanges(batch, state)));
  assert.is(error.code, 'invalid_input');
  assert.ok(
    error.issues.some((i) => i.path === 'changes[2].item.sleep_quality'),
    JSON.stringify(error.issues),
  );
  assert.is(events, undefined);
  assert.equal(snapshot(state), before);
  assert.is(live(state, 'exercise', BENCH), null);
  assert.equal(live(state, 'meal', MEAL), { revision: 1, deleted: false });
});

test('given an empty record, when a batch creates an exercise, then a workout that uses it, its feedback, and updates the workout, then each later change sees the earlier ones', () => {
  // The kit also checks that deciding folded nothing into the state it was given.
  record
    .given()
    .when([
      create('exercise', exerciseItem()),
      create('workout', workoutItem()),
      create('feedback', feedbackItem()),
      update('workout', workoutItem({ title: 'Push' }), 1),
    ])
    .then((events) =>
      assert.equal(
        events.map((e) => [e.type, revisionOf(e)]),
        [
          ['exercise.created', 1],
          ['workout.created', 1],
          ['feedback.created', 1],
          ['workout.updated', 2],
        ],
      ),
    );
});

test('given a meal, when a batch changes it twice, then the second change is decided against the revision the first made', () => {
  const meal = record.given(created('meal', mealItem()));
  meal
    .when([update('meal', mealItem({ name: 'A' }), 1), update('meal', mealItem({ name: 'B' }), 1)])
    .thenRefuses('revision_conflict', { at: 'changes[1].base_revision' });
  meal
    .when([update('meal', mealItem({ name: 'A' }), 1), update('meal', mealItem({ name: 'B' }), 2), del('meal', MEAL, 3)])
    .then((events) => assert.equal(events.map(revisionOf), [2, 3, 4]));
});

test('property: deciding any batch, decided or refused at any change, leaves the state as it was', () => {
  // Every map of the state is written by some change here: a date moved and taken, an exercise
  // renamed, deleted in use or not, a workout with its source and feedback, a routine and a goal.
  const state = record
    .given(
      created('exercise', exerciseItem()),
      created('exercise', exerciseItem({ id: SQUAT, name: 'Squat' })),
      created('workout', workoutItem()),
      created('routine', routineItem()),
      created('goal', goalItem()),
      created('checkin', checkinItem()),
      created('meal', mealItem()),
      created('feedback', feedbackItem()),
    )
    .state();
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
        assert.ok(
          revisions.every((r, i) => i === 0 || r > revisions[i - 1]!),
          `${key} revisions ${revisions} increase`,
        );
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
  record
    .given(created('exercise', exerciseItem()))
    .when([expectAt('exercise', BENCH, 1), create('workout', workoutItem())])
    .then((events) =>
      assert.equal(
        events.map((e) => e.type),
        ['workout.created'],
      ),
    );
});

test('expect: given the exercise was renamed since (revision 2), when a batch expects revision 1, then it is refused as a revision conflict at the expectation', () => {
  const error = record
    .given(created('exercise', exerciseItem()), updated('exercise', exerciseItem({ name: 'Bench' }), 2))
    .when([expectAt('exercise', BENCH, 1), create('workout', workoutItem())])
    .thenRefuses('revision_conflict', { at: 'changes[0].revision' });
  assert.equal(error.issues, [{ path: 'changes[0].revision', message: 'current revision is 2' }]);
});

test('expect: given a deleted or never-created item, when a batch expects it, then it is refused as not found', () => {
  const gone = record.given(created('meal', mealItem()), deleted('meal', MEAL, 2));
  gone.when([expectAt('meal', MEAL, 1)]).thenRefuses('not_found', { at: 'id' });
  gone.when([expectAt('meal', MISSING, 1)]).thenRefuses('not_found', { at: 'id' });
});

test('expect: given a meal, when a batch changes it and then expects it, then the expectation sees the change: a conflict at the old revision, fine at the new', () => {
  const meal = record.given(created('meal', mealItem()));
  meal.when([update('meal', mealItem({ name: 'Lunch' }), 1), expectAt('meal', MEAL, 1)]).thenRefuses('revision_conflict', { at: 'changes[1].revision' });
  meal.when([update('meal', mealItem({ name: 'Lunch' }), 1), expectAt('meal', MEAL, 2)]).then((events) =>
    assert.equal(
      events.map((e) => e.type),
      ['meal.updated'],
    ),
  );
});

// ---------------------------------------------------------------------------------------------
// itemImages: bodies as they are, for undo and for review

test('itemImages: given created, updated and deleted items, then each asked item has its latest body, revision, first creation and last change', () => {
  const at = (i: number) => `2026-01-0${i}T10:00:00.000Z`;
  const log = [
    { ...created('meal', mealItem()), occurred_at: at(1) },
    { ...created('checkin', checkinItem()), occurred_at: at(1) },
    { ...updated('meal', mealItem({ name: 'Lunch' }), 2), occurred_at: at(2) },
    { ...deleted('checkin', CHECKIN_A, 2), occurred_at: at(3) },
    { ...created('meal', mealItem({ id: uid(51), name: 'Not asked for' })), occurred_at: at(4) },
  ];
  const images = itemImages(log, new Set([itemKey('meal', MEAL), itemKey('checkin', CHECKIN_A), itemKey('goal', GOAL)]));
  assert.equal([...images.keys()].sort(), [itemKey('checkin', CHECKIN_A), itemKey('meal', MEAL)]);
  assert.equal(images.get(itemKey('meal', MEAL)), {
    kind: 'meal',
    id: MEAL,
    revision: 2,
    item: mealItem({ name: 'Lunch' }),
    created_at: at(1),
    updated_at: at(2),
  });
  assert.equal(images.get(itemKey('checkin', CHECKIN_A)), { kind: 'checkin', id: CHECKIN_A, revision: 2, item: null, created_at: at(1), updated_at: at(3) });
});

// ---------------------------------------------------------------------------------------------
// restore: a deleted item brought back (undo), as a new revision that keeps its creation time

const restore = (kind: RecordKind, item: unknown, base_revision: number, created_at = '2026-01-05T09:06:00.000Z'): RecordChange => ({
  op: 'restore',
  kind,
  item,
  base_revision,
  created_at,
});

test('restore: given a workout deleted with its feedback, when both are restored, then each is created again at the next revision, keeping its creation time', () => {
  const history = [
    created('exercise', exerciseItem()),
    created('workout', workoutItem()),
    created('feedback', feedbackItem()),
    deleted('workout', WORKOUT, 2),
    deleted('feedback', WORKOUT, 2),
  ];
  assert.equal(live(record.given(...history).state(), 'workout', WORKOUT), null);
  const events = record
    .given(...history)
    .when([restore('workout', workoutItem(), 2), restore('feedback', feedbackItem(), 2, '2026-01-05T09:10:00.000Z')])
    .then([
      createdWith('workout', workoutItem(), 3, { created_at: '2026-01-05T09:06:00.000Z' }),
      createdWith('feedback', feedbackItem(), 3, { created_at: '2026-01-05T09:10:00.000Z' }),
    ]);
  assert.equal(live(record.given(...history, ...events).state(), 'workout', WORKOUT), { revision: 3, deleted: false });
});

test('restore: given a live meal and a deleted check-in, when a live item, an unknown one, a stale revision or a bad creation time is restored, then it is refused', () => {
  const given = record.given(created('meal', mealItem()), created('checkin', checkinItem()), deleted('checkin', CHECKIN_A, 2));
  given.when([restore('meal', mealItem(), 1)]).thenRefuses('already_exists', { at: 'item.id' });
  given.when([restore('goal', goalItem(), 1)]).thenRefuses('not_found', { at: 'item.id' });
  given.when([restore('checkin', checkinItem(), 1)]).thenRefuses('revision_conflict', { at: 'base_revision' });
  given.when([restore('checkin', checkinItem(), 2, 'yesterday')]).thenRefuses('invalid_input', { at: 'created_at' });
});

test('restore: given a deleted check-in whose date another took since, when it is restored, then it is refused: date_taken (the item rules still hold)', () => {
  record
    .given(created('checkin', checkinItem()), deleted('checkin', CHECKIN_A, 2), created('checkin', checkinItem({ id: CHECKIN_B })))
    .when([restore('checkin', checkinItem(), 2)])
    .thenRefuses('date_taken', { at: 'item.date' });
});

test.run();
