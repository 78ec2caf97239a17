// list_saved_routines (most recently changed first) and get_saved_routine. The loaders are shared
// with the Read API's saved workouts, which are the same routines in the bot's shape.
import type { KeyObject } from 'node:crypto';
import type { PageQuery, RoutineDetail, RoutineListItem } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import { DomainError } from '../domain/errors.ts';
import type { RecordOwner } from './owner.ts';
import type { ReadStore } from '../store/read-store.ts';
import { keysetPage, type KeysetList } from './lists.ts';
import { recordText, UNKNOWN_EXERCISE } from './text.ts';

export type RoutineDoc = ItemDoc & RecordItem<'routine'> & { exercise_count: number };
type ExerciseDoc = ItemDoc & RecordItem<'exercise'>;

/** Saved routines, most recently changed first, ids breaking ties; `operation` binds the cursor. */
export function routinesList(operation: string): KeysetList<RoutineDoc> {
  return { operation, collection: 'routines', index: 'by_updated', keyOf: (r) => [r.updated_at, r.id] };
}
const LIST = routinesList('list_saved_routines');

/** A saved routine with its exercises in planned order, or null if it is not in this athlete's record. */
export async function loadSavedRoutine(
  reads: ReadStore,
  athleteId: string,
  routineId: string,
): Promise<{ routine: RoutineDoc; exercises: Array<{ entry: RecordItem<'routine'>['exercises'][number]; exercise: ExerciseDoc | null }> } | null> {
  // Read in the athlete's own partition: another athlete's id is as absent as a made-up one.
  const routine = await reads.get<RoutineDoc>(ITEM_COLLECTIONS.routine, athleteId, routineId);
  if (!routine) return null;
  const exercises = new Map(
    (await reads.getMany<ExerciseDoc>(ITEM_COLLECTIONS.exercise, athleteId, [...new Set(routine.exercises.map((e) => e.exercise_id))])).map((e) => [e.id, e]),
  );
  return {
    routine,
    exercises: [...routine.exercises].sort((a, b) => a.position - b.position).map((entry) => ({ entry, exercise: exercises.get(entry.exercise_id) ?? null })),
  };
}

function listItem(r: RoutineDoc): RoutineListItem {
  return { id: r.id, revision: r.revision, title: recordText(r.title), exercise_count: r.exercise_count, updated_at: r.updated_at, provenance: 'prescribed' };
}

export async function listSavedRoutines(reads: ReadStore, owner: RecordOwner, query: PageQuery, cursorKey: KeyObject) {
  const { docs, next_cursor } = await keysetPage(reads, owner.athleteId, query, cursorKey, LIST);
  return { items: docs.map(listItem), next_cursor };
}

export async function getSavedRoutine(reads: ReadStore, owner: RecordOwner, routineId: string): Promise<{ routine: RoutineDetail }> {
  const loaded = await loadSavedRoutine(reads, owner.athleteId, routineId);
  if (!loaded) throw new DomainError('not_found', `no saved routine ${routineId} in this record`);
  return {
    routine: {
      ...listItem(loaded.routine),
      exercises: loaded.exercises.map(({ entry: e, exercise }) => ({
        position: e.position,
        exercise_id: e.exercise_id,
        name: recordText(exercise?.name ?? UNKNOWN_EXERCISE),
        muscle_group: exercise?.muscle_group ?? null,
        tracking_type: exercise?.tracking_type ?? null,
        sets: e.sets,
        reps: e.reps,
        target_rpe: e.target_rpe,
        rest_seconds: e.rest_seconds,
        provenance: 'prescribed' as const,
      })),
    },
  };
}
