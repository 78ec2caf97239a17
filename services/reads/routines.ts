// list_saved_routines (most recently changed first) and get_saved_routine.
import type { KeyObject } from 'node:crypto';
import type { PageQuery, RoutineDetail, RoutineListItem } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { decodeCursor, encodeCursor } from '../api/cursor.ts';
import { ApiError } from '../api/errors.ts';
import type { Caller } from '../api/auth.ts';
import type { ReadStore } from '../store/read-store.ts';
import { recordText } from './text.ts';

type RoutineDoc = ItemDoc & RecordItem<'routine'> & { exercise_count: number };
type ExerciseDoc = ItemDoc & RecordItem<'exercise'>;
const LIST = 'list_saved_routines';

function listItem(r: RoutineDoc): RoutineListItem {
  return { id: r.id, revision: r.revision, title: recordText(r.title), exercise_count: r.exercise_count, updated_at: r.updated_at, provenance: 'prescribed' };
}

export async function listSavedRoutines(reads: ReadStore, caller: Caller, query: PageQuery, cursorKey: KeyObject) {
  const athleteId = caller.athlete.athlete_id;
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: LIST, athleteId }, query.cursor) : null;
  const docs = await reads.page<RoutineDoc>('routines', {
    partition: athleteId,
    index: 'by_updated',
    direction: 'desc',
    limit: query.limit + 1,
    ...(issued ? { after: issued.after } : {}),
  });
  const page = docs.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(listItem),
    next_cursor: docs.length > query.limit && last ? encodeCursor(cursorKey, { operation: LIST, athleteId, filters: {} }, [last.updated_at, last.id]) : null,
  };
}

export async function getSavedRoutine(reads: ReadStore, caller: Caller, routineId: string): Promise<{ routine: RoutineDetail }> {
  const athleteId = caller.athlete.athlete_id;
  // Read in the caller's own partition: another athlete's id is as absent as a made-up one.
  const routine = await reads.get<RoutineDoc>('routines', athleteId, routineId);
  if (!routine) throw new ApiError('not_found', `no saved routine ${routineId} in this record`);
  const exercises = new Map(
    (await reads.getMany<ExerciseDoc>('exercises', athleteId, [...new Set(routine.exercises.map((e) => e.exercise_id))])).map((e) => [e.id, e]),
  );
  return {
    routine: {
      ...listItem(routine),
      exercises: [...routine.exercises]
        .sort((a, b) => a.position - b.position)
        .map((e) => {
          const exercise = exercises.get(e.exercise_id);
          return {
            position: e.position,
            exercise_id: e.exercise_id,
            name: recordText(exercise?.name ?? 'Unknown exercise'),
            muscle_group: exercise?.muscle_group ?? null,
            tracking_type: exercise?.tracking_type ?? null,
            sets: e.sets,
            reps: e.reps,
            target_rpe: e.target_rpe,
            rest_seconds: e.rest_seconds,
            provenance: 'prescribed' as const,
          };
        }),
    },
  };
}
