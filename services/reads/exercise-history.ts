// get_exercise_history: one exercise's completed working sets, workout by workout, for workouts
// whose local date is in the window, newest first. Warm-ups and sets not completed are left out.
import type { KeyObject } from 'node:crypto';
import type { ExerciseHistory, ListQuery } from '../../contracts/agent-access.ts';
import type { RecordItem, WorkoutSet } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { BY_EXERCISE_DATE, RECORD_INDICATORS, type RecordEntryDoc } from '../../projections/record-entries.ts';
import { DomainError } from '../domain/errors.ts';
import type { RecordOwner } from './owner.ts';
import type { ReadStore } from '../store/read-store.ts';
import { recordText } from './text.ts';
import { windowedPage } from './lists.ts';

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

export async function getExerciseHistory(
  reads: ReadStore,
  owner: RecordOwner,
  exerciseId: string,
  query: ListQuery,
  now: Date,
  cursorKey: KeyObject,
): Promise<ExerciseHistory> {
  const athleteId = owner.athleteId;
  const exercise = await reads.get<ItemDoc & RecordItem<'exercise'>>('exercises', athleteId, exerciseId);
  if (!exercise) throw new DomainError('not_found', `no exercise ${exerciseId} in this record`);
  const { window, docs, next_cursor } = await windowedPage<RecordEntryDoc>(reads, owner, query, now, cursorKey, {
    operation: 'get_exercise_history',
    collection: RECORD_INDICATORS,
    index: BY_EXERCISE_DATE,
    prefix: [exerciseId],
    keyOf: (h) => [h.local_date, h.ended_at, h.workout_id],
    filters: { exercise_id: exerciseId },
  });
  return {
    window,
    exercise: { id: exercise.id, name: recordText(exercise.name) },
    items: docs.map((h) => ({
      workout_id: h.workout_id,
      ended_at: h.ended_at,
      // The entry keeps only the sets done (completed, not warm-ups).
      sets: h.sets.map((s) => ({ position: s.position, set_number: s.set_number, ...performanceOf(s), provenance: 'recorded' as const })),
    })),
    next_cursor,
  };
}
