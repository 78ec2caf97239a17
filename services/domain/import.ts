// Turns the workouts read out of another app's export into record changes. Ids are derived from
// the athlete and what the file says, and workouts already in the record are skipped, so that
// importing the same (or an overlapping, later) export again adds only what is new.
import type { ImportCompletedEvent, RecordEvent } from '../../contracts/events.ts';
import type { ImportApp, RecordItem, WorkoutSet } from '../../contracts/record.ts';
import type { ParsedExercise, ParsedMeal, ParsedMeasurement, ParsedWorkout } from './parsed-workouts.ts';
import { nameUuid } from './ids.ts';
import { decideChanges, exerciseNameKey, itemKey, type RecordChange, type RecordState } from './record.ts';

export interface ImportCommand {
  app: ImportApp;
  file_name: string;
  file_sha256: string;
  workouts: ParsedWorkout[];
  /** Body measurements and meals, from the exports that hold them. */
  measurements?: ParsedMeasurement[];
  meals?: ParsedMeal[];
}

export interface ImportDecision {
  events: RecordEvent[];
  workoutsAdded: number;
  workoutsSkipped: number;
  exercisesAdded: number;
  measurementsAdded: number;
  mealsAdded: number;
  /** Measurements and meals already in the record (or twice in the file). */
  othersSkipped: number;
}

/**
 * What an import creates, in order: each new exercise just before the first workout that uses it,
 * and the workouts not yet in the record. Each change decides into one `*.created` event.
 */
interface ImportPlan {
  changes: RecordChange[];
  workoutsAdded: number;
  workoutsSkipped: number;
  exercisesAdded: number;
}

export function decideImport(command: ImportCommand, state: RecordState): ImportDecision {
  const { changes, workoutsAdded, workoutsSkipped, exercisesAdded } = planImport(command, state);
  const others = planOthers(command, state);
  const all = [...changes, ...others.changes];
  const events = all.length > 0 ? decideChanges(all, state) : [];
  const holdsOthers = command.measurements !== undefined || command.meals !== undefined;
  const completed: ImportCompletedEvent = {
    type: 'import.completed',
    data: {
      app: command.app,
      file_name: command.file_name,
      file_sha256: command.file_sha256,
      workouts_added: workoutsAdded,
      workouts_skipped: workoutsSkipped,
      exercises_added: exercisesAdded,
      ...(holdsOthers ? { measurements_added: others.measurementsAdded, meals_added: others.mealsAdded, others_skipped: others.skipped } : {}),
    },
  };
  return {
    events: [...events, completed],
    workoutsAdded,
    workoutsSkipped,
    exercisesAdded,
    measurementsAdded: others.measurementsAdded,
    mealsAdded: others.mealsAdded,
    othersSkipped: others.skipped,
  };
}

/**
 * Measurements and meals not yet in the record. Their ids are derived from the athlete, the app
 * and the source's key, as a workout's are, so the same reading imported again is found by id.
 */
function planOthers(command: ImportCommand, state: RecordState): { changes: RecordChange[]; measurementsAdded: number; mealsAdded: number; skipped: number } {
  const changes: RecordChange[] = [];
  let skipped = 0;
  const added = new Set<string>();
  const isNew = (kind: 'body_measurement' | 'meal', sourceRef: string): string | null => {
    const id = nameUuid(`${state.athleteId}/${kind}/${command.app}:${sourceRef}`);
    const key = itemKey(kind, id);
    if (state.items.has(key) || added.has(key)) {
      skipped++;
      return null;
    }
    added.add(key);
    return id;
  };
  for (const m of command.measurements ?? []) {
    const id = isNew('body_measurement', m.source_ref);
    if (id) changes.push({ op: 'create', kind: 'body_measurement', item: { id, measured_at: m.measured_at, metric: m.metric, value: m.value } });
  }
  const measurementsAdded = changes.length;
  for (const m of command.meals ?? []) {
    const id = isNew('meal', m.source_ref);
    if (id)
      changes.push({
        op: 'create',
        kind: 'meal',
        item: {
          id,
          eaten_at: m.eaten_at,
          name: m.name,
          calories_kcal: m.calories_kcal,
          protein_g: m.protein_g,
          carbohydrate_g: m.carbohydrate_g,
          fat_g: m.fat_g,
        },
      });
  }
  return { changes, measurementsAdded, mealsAdded: changes.length - measurementsAdded, skipped };
}

/** The changes the import makes, which `decideImport` then decides (validating each item). */
function planImport(command: ImportCommand, state: RecordState): ImportPlan {
  const changes: RecordChange[] = [];
  const newExercises = new Map<string, string>();
  const exerciseId = (exercise: ParsedExercise): string => {
    const key = exerciseNameKey(exercise.title);
    const known = state.exerciseIdByName.get(key) ?? newExercises.get(key);
    if (known) return known;
    const id = nameUuid(`${state.athleteId}/exercise/${key}`);
    newExercises.set(key, id);
    changes.push({
      op: 'create',
      kind: 'exercise',
      item: { id, name: exercise.title.trim(), muscle_group: null, tracking_type: trackingTypeOf(exercise) },
    });
    return id;
  };

  let skipped = 0;
  const seen = new Set<string>();
  for (const parsed of command.workouts) {
    const ref = `${command.app}:${parsed.source_ref}`;
    if (state.workoutIdBySourceRef.has(ref) || seen.has(ref)) {
      skipped++;
      continue;
    }
    seen.add(ref);
    const workoutId = nameUuid(`${state.athleteId}/workout/${ref}`);
    const item: RecordItem<'workout'> = {
      id: workoutId,
      title: parsed.title,
      started_at: parsed.started_at,
      ended_at: parsed.ended_at,
      notes: parsed.notes,
      source: { app: command.app, ref: parsed.source_ref },
      exercises: parsed.exercises.map((exercise, order) => ({
        exercise_id: exerciseId(exercise),
        exercise_order: order,
        superset_id: exercise.superset_key === null ? null : nameUuid(`${workoutId}/superset/${exercise.superset_key}`),
        notes: exercise.notes,
        sets: setsOf(exercise),
      })),
    };
    changes.push({ op: 'create', kind: 'workout', item });
  }
  return { changes, workoutsAdded: changes.length - newExercises.size, workoutsSkipped: skipped, exercisesAdded: newExercises.size };
}

function trackingTypeOf(exercise: ParsedExercise): RecordItem<'exercise'>['tracking_type'] {
  const has = (f: (s: ParsedExercise['sets'][number]) => number | null) => exercise.sets.some((s) => f(s) !== null && f(s) !== 0);
  if (has((s) => s.distance_metres)) return has((s) => s.weight_kg) ? 'weight_distance' : 'distance';
  if (has((s) => s.weight_kg)) return 'weight_reps';
  if (has((s) => s.reps)) return 'bodyweight';
  return has((s) => s.duration_seconds) ? 'duration' : 'weight_reps';
}

/** Drop sets hang off the nearest earlier set that is not itself a drop set. */
function setsOf(exercise: ParsedExercise): WorkoutSet[] {
  let parent: number | null = null;
  return exercise.sets.map((s, i) => {
    const set: WorkoutSet = {
      position: i,
      set_number: i + 1,
      set_type: s.set_type,
      parent_position: s.set_type === 'drop_set' ? parent : null,
      weight_kg: s.weight_kg,
      reps: s.reps,
      rpe: s.rpe,
      target_rpe: null,
      duration_seconds: s.duration_seconds,
      distance_metres: s.distance_metres,
      incline_percent: null,
      // Exports hold the sets that were logged as done.
      completed: true,
    };
    if (s.set_type !== 'drop_set') parent = i;
    return set;
  });
}
