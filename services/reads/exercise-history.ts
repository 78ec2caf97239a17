// get_exercise_history: one exercise's completed working sets, workout by workout, for workouts
// whose local date is in the window, newest first. Warm-ups and sets not completed are left out.
import type { ExerciseHistory, ListQuery } from '../../contracts/agent-access.ts';
import type { RecordItem, WorkoutSet } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { EXERCISE_HISTORY, type ExerciseHistoryDoc } from '../../projections/workouts.ts';
import { decodeCursor, encodeCursor } from '../api/cursor.ts';
import { ApiError } from '../api/errors.ts';
import type { Caller } from '../http/agent-access.ts';
import type { ReadStore } from '../store/read-store.ts';
import { recordText } from './text.ts';
import { resolveWindow, windowOfCursor } from './window.ts';

const OPERATION = 'get_exercise_history';

export function performanceOf(s: WorkoutSet) {
  return {
    weight_kg: s.weight_kg,
    reps: s.reps,
    rpe: s.rpe,
    rpe_provenance: 'self_reported' as const,
    duration_seconds: s.duration_seconds,
    distance_metres: s.distance_metres,
    incline_percent: s.incline_percent,
  };
}

export async function getExerciseHistory(reads: ReadStore, caller: Caller, exerciseId: string, query: ListQuery, now: Date, cursorKey: Buffer): Promise<ExerciseHistory> {
  const athleteId = caller.athlete.athlete_id;
  const exercise = await reads.get<ItemDoc & RecordItem<'exercise'>>('exercises', athleteId, exerciseId);
  if (!exercise) throw new ApiError('not_found', `no exercise ${exerciseId} in this record`);
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: OPERATION, athleteId }, query.cursor) : null;
  if (issued && issued.filters.exercise_id !== exerciseId) throw new ApiError('invalid_input', 'cursor: it was issued for another exercise');
  const window = issued ? windowOfCursor(query, issued.filters) : resolveWindow(query, caller.athlete.profile.timezone, now);
  const docs = await reads.page<ExerciseHistoryDoc>(EXERCISE_HISTORY, {
    partition: athleteId,
    index: 'by_exercise_date',
    prefix: [exerciseId],
    direction: 'desc',
    range: { gte: window.from, lte: window.to },
    limit: query.limit + 1,
    ...(issued ? { after: issued.after } : {}),
  });
  const page = docs.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    window,
    exercise: { id: exercise.id, name: recordText(exercise.name) },
    items: page.map((h) => ({
      workout_id: h.workout_id,
      ended_at: h.ended_at,
      sets: h.sets
        .filter((s) => s.completed && s.set_type !== 'warmup')
        .map((s) => ({ position: s.position, set_number: s.set_number, ...performanceOf(s), provenance: 'recorded' as const })),
    })),
    next_cursor:
      docs.length > query.limit && last
        ? encodeCursor(cursorKey, { operation: OPERATION, athleteId, filters: { ...window, exercise_id: exerciseId } }, [last.local_date, last.ended_at, last.workout_id])
        : null,
  };
}
