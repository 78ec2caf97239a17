// decideImport: parsed export workouts become record events, with ids derived from the athlete
// and the file so that importing the same (or an overlapping) export again adds only what is new.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordEvent, type RecordEvent } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { decideImport, type ImportCommand, type ImportDecision } from '../../services/domain/import.ts';
import { decideChanges, evolve, initialRecordState, type RecordState } from '../../services/domain/record.ts';
import type { ParsedExercise, ParsedSet, ParsedWorkout } from '../../services/import/types.ts';

// ---------------------------------------------------------------------------------------------
// Builders

const ATHLETE = '00000000-0000-4000-8000-0000000000a1';
const OTHER_ATHLETE = '00000000-0000-4000-8000-0000000000a2';

function parsedSet(overrides: Partial<ParsedSet> = {}): ParsedSet {
  return {
    position: 0,
    set_type: 'normal',
    weight_kg: 80,
    reps: 5,
    distance_metres: null,
    duration_seconds: null,
    rpe: null,
    line: 2,
    ...overrides,
  };
}

function parsedExercise(overrides: Partial<ParsedExercise> = {}): ParsedExercise {
  return { title: 'Bench Press (Barbell)', superset_key: null, notes: null, sets: [parsedSet()], ...overrides };
}

function parsedWorkout(overrides: Partial<ParsedWorkout> = {}): ParsedWorkout {
  return {
    source_ref: 'hevy:2026-01-05T08:00:00Z:Push Day',
    title: 'Push Day',
    started_at: '2026-01-05T08:00:00Z',
    ended_at: '2026-01-05T09:05:00Z',
    notes: null,
    exercises: [parsedExercise()],
    line: 2,
    ...overrides,
  };
}

/** A workout on day `day` of January 2026 with its own source ref. */
function workoutOn(day: number, exercises: ParsedExercise[] = [parsedExercise()]): ParsedWorkout {
  const date = `2026-01-${String(day).padStart(2, '0')}`;
  return parsedWorkout({
    source_ref: `hevy:${date}T08:00:00Z:Day ${day}`,
    title: `Day ${day}`,
    started_at: `${date}T08:00:00Z`,
    ended_at: `${date}T09:00:00Z`,
    exercises,
  });
}

function importCommand(workouts: ParsedWorkout[], overrides: Partial<ImportCommand> = {}): ImportCommand {
  return { app: 'hevy', file_name: 'workouts.csv', file_sha256: 'a'.repeat(64), workouts, ...overrides };
}

const fold = (state: RecordState, events: RecordEvent[]) => events.reduce(evolve, state);

type WorkoutEvent = { type: 'workout.created'; data: { item: RecordItem<'workout'>; revision: number } };
type ExerciseEvent = { type: 'exercise.created'; data: { item: RecordItem<'exercise'>; revision: number } };
const workoutsOf = (d: ImportDecision) => d.events.filter((e): e is WorkoutEvent => e.type === 'workout.created').map((e) => e.data.item);
const exercisesOf = (d: ImportDecision) => d.events.filter((e): e is ExerciseEvent => e.type === 'exercise.created').map((e) => e.data.item);
const completedOf = (d: ImportDecision) => {
  const last = d.events[d.events.length - 1];
  assert.is(last?.type, 'import.completed', 'the decision ends with import.completed');
  return (last as Extract<RecordEvent, { type: 'import.completed' }>).data;
};

// ---------------------------------------------------------------------------------------------
// Exercises

test('an import creates the exercises and workouts and ends with import.completed', () => {
  const decision = decideImport(
    importCommand([workoutOn(5, [parsedExercise(), parsedExercise({ title: 'Squat (Barbell)' })]), workoutOn(7)]),
    initialRecordState(ATHLETE),
  );
  assert.equal(decision.events.map((e) => e.type), ['exercise.created', 'exercise.created', 'workout.created', 'workout.created', 'import.completed']);
  for (const event of decision.events) recordEvent.parse(event);
  assert.equal(completedOf(decision), {
    app: 'hevy',
    file_name: 'workouts.csv',
    file_sha256: 'a'.repeat(64),
    workouts_added: 2,
    workouts_skipped: 0,
    exercises_added: 2,
  });
  assert.equal([decision.workoutsAdded, decision.workoutsSkipped, decision.exercisesAdded], [2, 0, 2]);
  const [first] = workoutsOf(decision);
  assert.equal(first!.source, { app: 'hevy', ref: 'hevy:2026-01-05T08:00:00Z:Day 5' });
  assert.equal(first!.exercises.map((e) => e.exercise_order), [0, 1]);
});

test('exercises are created once per name, ignoring case and whitespace', () => {
  const decision = decideImport(
    importCommand([
      workoutOn(5, [parsedExercise({ title: 'Bench Press (Barbell)' }), parsedExercise({ title: 'bench press (barbell)' })]),
      workoutOn(6, [parsedExercise({ title: '  Bench   Press (BARBELL) ' })]),
      workoutOn(7, [parsedExercise({ title: 'Bench\tPress (Barbell)' })]),
    ]),
    initialRecordState(ATHLETE),
  );
  const exercises = exercisesOf(decision);
  assert.is(exercises.length, 1);
  assert.is(exercises[0]!.name, 'Bench Press (Barbell)');
  assert.is(decision.exercisesAdded, 1);
  const used = new Set(workoutsOf(decision).flatMap((w) => w.exercises.map((e) => e.exercise_id)));
  assert.equal([...used], [exercises[0]!.id]);
});

test('a name trimmed of surrounding whitespace is stored', () => {
  const decision = decideImport(importCommand([workoutOn(5, [parsedExercise({ title: '  Deadlift  ' })])]), initialRecordState(ATHLETE));
  assert.is(exercisesOf(decision)[0]!.name, 'Deadlift');
});

test('an exercise already in the catalog under another spelling is reused, not created', () => {
  const state = initialRecordState(ATHLETE);
  const manual = '00000000-0000-4000-8000-00000000e001';
  fold(state, decideChanges([{ op: 'create', kind: 'exercise', item: { id: manual, name: 'Bench Press (Barbell)', muscle_group: 'chest', tracking_type: 'weight_reps' } }], state));
  const decision = decideImport(importCommand([workoutOn(5, [parsedExercise({ title: 'BENCH PRESS  (barbell)' })])]), state);
  assert.equal(exercisesOf(decision), []);
  assert.is(decision.exercisesAdded, 0);
  assert.is(workoutsOf(decision)[0]!.exercises[0]!.exercise_id, manual);
});

// ---------------------------------------------------------------------------------------------
// Deterministic ids and re-imports

test('ids are deterministic: the same athlete and file give the same ids', () => {
  const command = importCommand([workoutOn(5, [parsedExercise(), parsedExercise({ title: 'Squat', superset_key: '1' })]), workoutOn(6)]);
  const a = decideImport(command, initialRecordState(ATHLETE));
  const b = decideImport(command, initialRecordState(ATHLETE));
  assert.equal(a.events, b.events);
});

test('another athlete importing the same file gets different ids', () => {
  const command = importCommand([workoutOn(5, [parsedExercise(), parsedExercise({ title: 'Squat', superset_key: '1' })]), workoutOn(6)]);
  const a = decideImport(command, initialRecordState(ATHLETE));
  const b = decideImport(command, initialRecordState(OTHER_ATHLETE));
  const ids = (d: ImportDecision) => [
    ...exercisesOf(d).map((e) => e.id),
    ...workoutsOf(d).map((w) => w.id),
    ...workoutsOf(d).flatMap((w) => w.exercises.flatMap((e) => (e.superset_id ? [e.superset_id] : []))),
  ];
  assert.is(ids(a).length, 5);
  assert.is(ids(b).length, 5);
  const shared = ids(a).filter((id) => ids(b).includes(id));
  assert.equal(shared, []);
});

test('importing the same file again after the first import adds nothing and reports the workouts skipped', () => {
  const state = initialRecordState(ATHLETE);
  const command = importCommand([workoutOn(5), workoutOn(6), workoutOn(7, [parsedExercise({ title: 'Squat' })])]);
  const first = decideImport(command, state);
  assert.is(first.workoutsAdded, 3);
  fold(state, first.events);
  const again = decideImport(command, state);
  assert.equal(again.events.map((e) => e.type), ['import.completed']);
  assert.equal([again.workoutsAdded, again.workoutsSkipped, again.exercisesAdded], [0, 3, 0]);
  assert.equal(completedOf(again), { ...completedOf(first), workouts_added: 0, workouts_skipped: 3, exercises_added: 0 });
});

test('re-importing after an imported workout was deleted skips it rather than failing', () => {
  const state = initialRecordState(ATHLETE);
  const command = importCommand([workoutOn(5), workoutOn(6)]);
  const first = decideImport(command, state);
  fold(state, first.events);
  const deleted = workoutsOf(first)[0]!.id;
  fold(state, decideChanges([{ op: 'delete', kind: 'workout', id: deleted, base_revision: 1 }], state));
  const again = decideImport(command, state);
  assert.equal([again.workoutsAdded, again.workoutsSkipped], [0, 2]);
});

test('an overlapping later export adds only the new workouts', () => {
  const state = initialRecordState(ATHLETE);
  fold(state, decideImport(importCommand([workoutOn(5), workoutOn(6)]), state).events);
  const later = importCommand([workoutOn(5), workoutOn(6), workoutOn(8, [parsedExercise(), parsedExercise({ title: 'Overhead Press' })])], {
    file_name: 'workouts-later.csv',
    file_sha256: 'b'.repeat(64),
  });
  const decision = decideImport(later, state);
  assert.equal(workoutsOf(decision).map((w) => w.title), ['Day 8']);
  assert.equal(exercisesOf(decision).map((e) => e.name), ['Overhead Press']);
  assert.equal([decision.workoutsAdded, decision.workoutsSkipped, decision.exercisesAdded], [1, 2, 1]);
  // The new workout gets the id it would have had in a fresh import of the later file.
  const fresh = decideImport(later, initialRecordState(ATHLETE));
  assert.is(workoutsOf(decision)[0]!.id, workoutsOf(fresh).find((w) => w.title === 'Day 8')!.id);
  // And it lands: the events fold without complaint.
  fold(state, decision.events);
  assert.equal(decideImport(later, state).workoutsAdded, 0);
});

test('a workout listed twice in one file is added once', () => {
  const decision = decideImport(importCommand([workoutOn(5), workoutOn(5)]), initialRecordState(ATHLETE));
  assert.equal([decision.workoutsAdded, decision.workoutsSkipped], [1, 1]);
  assert.is(workoutsOf(decision).length, 1);
});

test('the same source ref from another app is a different workout', () => {
  const state = initialRecordState(ATHLETE);
  fold(state, decideImport(importCommand([workoutOn(5)]), state).events);
  const decision = decideImport(importCommand([workoutOn(5)], { app: 'strong' }), state);
  assert.is(decision.workoutsAdded, 1);
});

// ---------------------------------------------------------------------------------------------
// Supersets, drop sets, tracking types

test('supersets map to one uuid per key within a workout', () => {
  const decision = decideImport(
    importCommand([
      workoutOn(5, [
        parsedExercise({ title: 'Curl', superset_key: '0' }),
        parsedExercise({ title: 'Pushdown', superset_key: '0' }),
        parsedExercise({ title: 'Lateral Raise', superset_key: '1' }),
        parsedExercise({ title: 'Face Pull', superset_key: '1' }),
        parsedExercise({ title: 'Plank', superset_key: null }),
      ]),
      workoutOn(6, [parsedExercise({ title: 'Curl', superset_key: '0' }), parsedExercise({ title: 'Pushdown', superset_key: '0' })]),
    ]),
    initialRecordState(ATHLETE),
  );
  const [a, b] = workoutsOf(decision);
  const [s0, s0b, s1, s1b, none] = a!.exercises.map((e) => e.superset_id);
  assert.ok(s0 && s1, 'keyed exercises get a superset id');
  assert.is(s0b, s0);
  assert.is(s1b, s1);
  assert.is.not(s0, s1);
  assert.is(none, null);
  const [t0, t0b] = b!.exercises.map((e) => e.superset_id);
  assert.is(t0b, t0);
  assert.is.not(t0, s0, 'the same key in another workout is another superset');
});

test('drop sets get the position of the preceding non-drop set as their parent', () => {
  const types: ParsedSet['set_type'][] = ['drop_set', 'warmup', 'drop_set', 'normal', 'drop_set', 'drop_set', 'failure', 'normal', 'drop_set'];
  const sets = types.map((set_type, position) => parsedSet({ position, set_type, weight_kg: 100 - position * 5 }));
  const decision = decideImport(importCommand([workoutOn(5, [parsedExercise({ sets })])]), initialRecordState(ATHLETE));
  const imported = workoutsOf(decision)[0]!.exercises[0]!.sets;
  assert.equal(imported.map((s) => s.set_type), types);
  assert.equal(imported.map((s) => s.parent_position), [null, null, 1, null, 3, 3, null, null, 7]);
  assert.equal(imported.map((s) => [s.position, s.set_number]), types.map((_, i) => [i, i + 1]));
  assert.ok(imported.every((s) => s.completed));
});

const trackingTypeFor = (sets: Partial<ParsedSet>[]) => {
  const parsed = sets.map((s, position) => parsedSet({ position, weight_kg: null, reps: null, ...s }));
  const decision = decideImport(importCommand([workoutOn(5, [parsedExercise({ sets: parsed })])]), initialRecordState(ATHLETE));
  return exercisesOf(decision)[0]!.tracking_type;
};

test('tracking types are inferred from the sets', () => {
  assert.is(trackingTypeFor([{ distance_metres: 5000, duration_seconds: 1500 }]), 'distance');
  assert.is(trackingTypeFor([{ distance_metres: 5000 }]), 'distance');
  assert.is(trackingTypeFor([{ weight_kg: 20, distance_metres: 40 }]), 'weight_distance');
  assert.is(trackingTypeFor([{ distance_metres: 40 }, { weight_kg: 30, distance_metres: 40 }]), 'weight_distance');
  assert.is(trackingTypeFor([{ reps: 12 }]), 'bodyweight');
  assert.is(trackingTypeFor([{ reps: 12, weight_kg: 0 }]), 'bodyweight');
  assert.is(trackingTypeFor([{ duration_seconds: 60 }]), 'duration');
  assert.is(trackingTypeFor([{ weight_kg: 80, reps: 5 }]), 'weight_reps');
  assert.is(trackingTypeFor([{ reps: 10 }, { weight_kg: 10, reps: 8 }]), 'weight_reps');
});

test('set values are carried over in canonical units', () => {
  const set = parsedSet({ weight_kg: 102.5, reps: 3, rpe: 9.5, distance_metres: null, duration_seconds: null });
  const decision = decideImport(importCommand([workoutOn(5, [parsedExercise({ sets: [set], notes: 'paused' })])]), initialRecordState(ATHLETE));
  const exercise = workoutsOf(decision)[0]!.exercises[0]!;
  assert.is(exercise.notes, 'paused');
  assert.equal(exercise.sets[0], {
    position: 0,
    set_number: 1,
    set_type: 'normal',
    parent_position: null,
    weight_kg: 102.5,
    reps: 3,
    rpe: 9.5,
    target_rpe: null,
    duration_seconds: null,
    distance_metres: null,
    incline_percent: null,
    completed: true,
  });
});

test.run();
