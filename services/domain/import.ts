// Turns the workouts read out of another app's export into record changes. Ids are derived from
// the athlete and what the file says, and workouts already in the record are skipped, so that
// importing the same (or an overlapping, later) export again adds only what is new.
import type { ImportCompletedEvent, RecordEvent } from '../../contracts/events.ts';
import type { RecordItem, WorkoutSet } from '../../contracts/record.ts';
import type { ParsedExercise, ParsedWorkout } from './parsed-workouts.ts';
import { nameUuid } from './ids.ts';
import { decideChanges, exerciseNameKey, type RecordChange, type RecordState } from './record.ts';

export interface ImportCommand {
  app: 'hevy' | 'strong';
  file_name: string;
  file_sha256: string;
  workouts: ParsedWorkout[];
}

export interface ImportDecision {
  events: RecordEvent[];
  workoutsAdded: number;
  workoutsSkipped: number;
  exercisesAdded: number;
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
  const events = changes.length > 0 ? decideChanges(changes, state) : [];
  const completed: ImportCompletedEvent = {
    type: 'import.completed',
    data: {
      app: command.app,
      file_name: command.file_name,
      file_sha256: command.file_sha256,
      workouts_added: workoutsAdded,
      workouts_skipped: workoutsSkipped,
      exercises_added: exercisesAdded,
    },
  };
  return {
    events: [...events, completed],
    workoutsAdded,
    workoutsSkipped,
    exercisesAdded,
  };
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
