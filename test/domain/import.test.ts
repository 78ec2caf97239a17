// decideImport: parsed export workouts become record events, with ids derived from the athlete
// and the file so that importing the same (or an overlapping) export again adds only what is new.
// Given the record's events, when a file is imported, then this decision (test/support/decider-spec.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recordEvent, type RecordEvent } from '../../contracts/events.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { decideImport, type ImportCommand, type ImportDecision } from '../../services/domain/import.ts';
import { initialRecordState } from '../../services/domain/record.ts';
import type { ParsedMeal, ParsedMeasurement } from '../../services/domain/parsed-workouts.ts';
import type { ParsedExercise, ParsedSet, ParsedWorkout } from '../../services/import/types.ts';
import { DeciderSpecification } from '../support/decider-spec.ts';
import { created, deleted, importDecider } from '../support/deciders.ts';

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

/** The import decider, specified: given the athlete's record events, when a file is imported. */
const imports = DeciderSpecification.for(importDecider(ATHLETE));

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

test('given an empty record, when a file is imported, then its exercises and workouts are created, and the decision ends with import.completed', () => {
  imports
    .given()
    .when(importCommand([workoutOn(5, [parsedExercise(), parsedExercise({ title: 'Squat (Barbell)' })]), workoutOn(7)]))
    .then((decision) => {
      assert.equal(
        decision.events.map((e) => e.type),
        ['exercise.created', 'exercise.created', 'workout.created', 'workout.created', 'import.completed'],
      );
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
      assert.equal(
        first!.exercises.map((e) => e.exercise_order),
        [0, 1],
      );
    });
});

test('when a file names an exercise in several spellings (case, whitespace), then it is created once', () => {
  imports
    .given()
    .when(
      importCommand([
        workoutOn(5, [parsedExercise({ title: 'Bench Press (Barbell)' }), parsedExercise({ title: 'bench press (barbell)' })]),
        workoutOn(6, [parsedExercise({ title: '  Bench   Press (BARBELL) ' })]),
        workoutOn(7, [parsedExercise({ title: 'Bench\tPress (Barbell)' })]),
      ]),
    )
    .then((decision) => {
      const exercises = exercisesOf(decision);
      assert.is(exercises.length, 1);
      assert.is(exercises[0]!.name, 'Bench Press (Barbell)');
      assert.is(decision.exercisesAdded, 1);
      const used = new Set(workoutsOf(decision).flatMap((w) => w.exercises.map((e) => e.exercise_id)));
      assert.equal([...used], [exercises[0]!.id]);
    });
});

test('when an exercise name has surrounding whitespace, then it is stored trimmed', () => {
  imports
    .given()
    .when(importCommand([workoutOn(5, [parsedExercise({ title: '  Deadlift  ' })])]))
    .then((decision) => assert.is(exercisesOf(decision)[0]!.name, 'Deadlift'));
});

test('given an exercise in the catalog, when a file names it in another spelling, then it is reused, not created', () => {
  const manual = '00000000-0000-4000-8000-00000000e001';
  imports
    .given(created('exercise', { id: manual, name: 'Bench Press (Barbell)', muscle_group: 'chest', tracking_type: 'weight_reps' }))
    .when(importCommand([workoutOn(5, [parsedExercise({ title: 'BENCH PRESS  (barbell)' })])]))
    .then((decision) => {
      assert.equal(exercisesOf(decision), []);
      assert.is(decision.exercisesAdded, 0);
      assert.is(workoutsOf(decision)[0]!.exercises[0]!.exercise_id, manual);
    });
});

// ---------------------------------------------------------------------------------------------
// Deterministic ids and re-imports

test('given an empty record, when a file is imported, then the decision is the one another empty record of the athlete gets: ids are deterministic', () => {
  const command = importCommand([workoutOn(5, [parsedExercise(), parsedExercise({ title: 'Squat', superset_key: '1' })]), workoutOn(6)]);
  imports
    .given()
    .when(command)
    .then(decideImport(command, initialRecordState(ATHLETE)));
});

test('when another athlete imports the same file, then every id differs', () => {
  const command = importCommand([workoutOn(5, [parsedExercise(), parsedExercise({ title: 'Squat', superset_key: '1' })]), workoutOn(6)]);
  const ids = (d: ImportDecision) => [
    ...exercisesOf(d).map((e) => e.id),
    ...workoutsOf(d).map((w) => w.id),
    ...workoutsOf(d).flatMap((w) => w.exercises.flatMap((e) => (e.superset_id ? [e.superset_id] : []))),
  ];
  const a = imports
    .given()
    .when(command)
    .then((d) => assert.is(ids(d).length, 5));
  const b = DeciderSpecification.for(importDecider(OTHER_ATHLETE))
    .given()
    .when(command)
    .then((d) => assert.is(ids(d).length, 5));
  const shared = ids(a).filter((id) => ids(b).includes(id));
  assert.equal(shared, []);
});

test('given a file imported, when it is imported again, then nothing is added and the workouts are reported skipped', () => {
  const command = importCommand([workoutOn(5), workoutOn(6), workoutOn(7, [parsedExercise({ title: 'Squat' })])]);
  const first = imports
    .given()
    .when(command)
    .then((d) => assert.is(d.workoutsAdded, 3));
  imports
    .given(...first.events)
    .when(command)
    .then((again) => {
      assert.equal(
        again.events.map((e) => e.type),
        ['import.completed'],
      );
      assert.equal([again.workoutsAdded, again.workoutsSkipped, again.exercisesAdded], [0, 3, 0]);
      assert.equal(completedOf(again), { ...completedOf(first), workouts_added: 0, workouts_skipped: 3, exercises_added: 0 });
    });
});

test('given a file imported and one of its workouts deleted, when it is imported again, then the deleted workout is skipped rather than failing', () => {
  const command = importCommand([workoutOn(5), workoutOn(6)]);
  const first = imports
    .given()
    .when(command)
    .then((d) => assert.is(d.workoutsAdded, 2));
  const gone = workoutsOf(first)[0]!.id;
  imports
    .given(...first.events, deleted('workout', gone, 2))
    .when(command)
    .then((again) => assert.equal([again.workoutsAdded, again.workoutsSkipped], [0, 2]));
});

test('given a file imported, when an overlapping later export is imported, then only the new workouts are added', () => {
  const first = imports
    .given()
    .when(importCommand([workoutOn(5), workoutOn(6)]))
    .then((d) => assert.is(d.workoutsAdded, 2));
  const later = importCommand([workoutOn(5), workoutOn(6), workoutOn(8, [parsedExercise(), parsedExercise({ title: 'Overhead Press' })])], {
    file_name: 'workouts-later.csv',
    file_sha256: 'b'.repeat(64),
  });
  const decision = imports
    .given(...first.events)
    .when(later)
    .then((decision) => {
      assert.equal(
        workoutsOf(decision).map((w) => w.title),
        ['Day 8'],
      );
      assert.equal(
        exercisesOf(decision).map((e) => e.name),
        ['Overhead Press'],
      );
      assert.equal([decision.workoutsAdded, decision.workoutsSkipped, decision.exercisesAdded], [1, 2, 1]);
    });
  // The new workout gets the id it would have had in a fresh import of the later file.
  imports
    .given()
    .when(later)
    .then((fresh) => assert.is(workoutsOf(decision)[0]!.id, workoutsOf(fresh).find((w) => w.title === 'Day 8')!.id));
  // And it lands: the events fold without complaint.
  imports
    .given(...first.events, ...decision.events)
    .when(later)
    .then((d) => assert.equal(d.workoutsAdded, 0));
});

test('when a file lists a workout twice, then it is added once', () => {
  imports
    .given()
    .when(importCommand([workoutOn(5), workoutOn(5)]))
    .then((decision) => {
      assert.equal([decision.workoutsAdded, decision.workoutsSkipped], [1, 1]);
      assert.is(workoutsOf(decision).length, 1);
    });
});

test('given a workout imported from one app, when the same source ref comes from another app, then it is a different workout', () => {
  const first = imports
    .given()
    .when(importCommand([workoutOn(5)]))
    .then((d) => assert.is(d.workoutsAdded, 1));
  imports
    .given(...first.events)
    .when(importCommand([workoutOn(5)], { app: 'strong' }))
    .then((decision) => assert.is(decision.workoutsAdded, 1));
});

// ---------------------------------------------------------------------------------------------
// Supersets, drop sets, tracking types

test('when a file has supersets, then each key maps to one uuid within a workout', () => {
  imports
    .given()
    .when(
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
    )
    .then((decision) => {
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
});

test('when a file has drop sets, then each gets the position of the preceding non-drop set as its parent', () => {
  const types: ParsedSet['set_type'][] = ['drop_set', 'warmup', 'drop_set', 'normal', 'drop_set', 'drop_set', 'failure', 'normal', 'drop_set'];
  const sets = types.map((set_type, position) => parsedSet({ position, set_type, weight_kg: 100 - position * 5 }));
  imports
    .given()
    .when(importCommand([workoutOn(5, [parsedExercise({ sets })])]))
    .then((decision) => {
      const imported = workoutsOf(decision)[0]!.exercises[0]!.sets;
      assert.equal(
        imported.map((s) => s.set_type),
        types,
      );
      assert.equal(
        imported.map((s) => s.parent_position),
        [null, null, 1, null, 3, 3, null, null, 7],
      );
      assert.equal(
        imported.map((s) => [s.position, s.set_number]),
        types.map((_, i) => [i, i + 1]),
      );
      assert.ok(imported.every((s) => s.completed));
    });
});

/** The tracking type of the one exercise an import of these sets creates. */
const trackingTypeFor = (sets: Partial<ParsedSet>[]) => {
  const parsed = sets.map((s, position) => parsedSet({ position, weight_kg: null, reps: null, ...s }));
  const decision = imports
    .given()
    .when(importCommand([workoutOn(5, [parsedExercise({ sets: parsed })])]))
    .then((d) => assert.is(exercisesOf(d).length, 1));
  return exercisesOf(decision)[0]!.tracking_type;
};

test('when an exercise is imported, then its tracking type is inferred from its sets', () => {
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

test('when a set is imported, then its values are carried over in canonical units', () => {
  const set = parsedSet({ weight_kg: 102.5, reps: 3, rpe: 9.5, distance_metres: null, duration_seconds: null });
  imports
    .given()
    .when(importCommand([workoutOn(5, [parsedExercise({ sets: [set], notes: 'paused' })])]))
    .then((decision) => {
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
});

// ---------------------------------------------------------------------------------------------
// Measurements and meals (the Health app's export)

const weighIn = (at: string, value = 80): ParsedMeasurement => ({ source_ref: `bodyweight ${at}`, measured_at: at, metric: 'bodyweight', value, line: 3 });
const dayTotal = (date: string): ParsedMeal => ({
  source_ref: `day ${date}`,
  eaten_at: `${date}T19:00:00.000Z`,
  name: 'Day total from Apple Health',
  calories_kcal: 2000,
  protein_g: 90,
  carbohydrate_g: null,
  fat_g: 60,
  line: 4,
});

test('given a record holding an earlier import’s measurement and meal, when the export is imported again with new ones, then only the new ones are created, once each', () => {
  const health = (measurements: ParsedMeasurement[], meals: ParsedMeal[]) =>
    importCommand([], { app: 'apple_health', file_name: 'export.zip', measurements, meals });
  const earlier = imports
    .given()
    .when(health([weighIn('2026-01-05T07:00:00.000Z')], [dayTotal('2026-01-05')]))
    .then((d) => {
      assert.equal(
        d.events.map((e) => e.type),
        ['body_measurement.created', 'meal.created', 'import.completed'],
      );
      for (const event of d.events) recordEvent.parse(event);
    });
  imports
    .given(...earlier.events.slice(0, -1))
    .when(
      health(
        [weighIn('2026-01-05T07:00:00.000Z'), weighIn('2026-01-06T07:00:00.000Z', 79.5), weighIn('2026-01-06T07:00:00.000Z', 79.5)],
        [dayTotal('2026-01-05'), dayTotal('2026-01-06')],
      ),
    )
    .then((d) => {
      const dated = d.events.flatMap((e) =>
        e.type === 'body_measurement.created' ? [[e.type, e.data.item.measured_at]] : e.type === 'meal.created' ? [[e.type, e.data.item.eaten_at]] : [],
      );
      assert.equal(dated, [
        ['body_measurement.created', '2026-01-06T07:00:00.000Z'],
        ['meal.created', '2026-01-06T19:00:00.000Z'],
      ]);
      assert.equal([d.measurementsAdded, d.mealsAdded, d.othersSkipped], [1, 1, 3]);
      const { measurements_added, meals_added, others_skipped } = completedOf(d);
      assert.equal([measurements_added, meals_added, others_skipped], [1, 1, 3]);
    });
});

test('when a CSV export (no measurements or meals) is imported, then its receipt has no such counts', () => {
  imports
    .given()
    .when(importCommand([workoutOn(5)]))
    .then((d) => assert.not.ok('measurements_added' in completedOf(d)));
});

test.run();
