// list_completed_workouts: completed workouts whose local date (start, else creation, in the
// record timezone) falls in the window, newest first (by local date, then end time, then id).
import type { KeyObject } from 'node:crypto';
import type { ListQuery, WorkoutDetail, WorkoutDuration, WorkoutSummary } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { RECORD_INDICATORS, setKey, type RecordEntryDoc } from '../../projections/records.ts';
import { WORKOUT_DETAILS, WORKOUTS, type WorkoutDetailDoc, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import { ApiError } from '../api/errors.ts';
import type { Caller } from '../api/auth.ts';
import type { ReadStore } from '../store/read-store.ts';
import { performanceOf } from './exercise-history.ts';
import { recordText } from './text.ts';
import { windowedPage } from './lists.ts';

export function durationOf(doc: WorkoutSummaryDoc): WorkoutDuration {
  return {
    seconds: doc.duration.seconds,
    basis: doc.duration.basis,
    provenance: 'derived',
    calculation_version: 'duration.v1',
    computed_at: doc.duration.computed_at,
    baseline: 'recorded_start_to_end',
    sample_count: doc.duration.sample_count,
  };
}

export function workoutSummary(doc: WorkoutSummaryDoc): WorkoutSummary {
  return {
    id: doc.id,
    title: recordText(doc.title),
    started_at: doc.started_at,
    ended_at: doc.ended_at,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    revision: doc.revision,
    duration: durationOf(doc),
    provenance: 'recorded',
  };
}

export async function listCompletedWorkouts(reads: ReadStore, caller: Caller, query: ListQuery, now: Date, cursorKey: KeyObject) {
  const { window, docs, next_cursor } = await windowedPage<WorkoutSummaryDoc>(reads, caller, query, now, cursorKey, {
    operation: 'list_completed_workouts',
    collection: WORKOUTS,
    index: 'by_local_date',
    keyOf: (w) => [w.local_date, w.ended_at, w.id],
  });
  return { window, items: docs.map(workoutSummary), next_cursor };
}

/** get_completed_workout: the whole workout with its sets and their record indicators. */
export async function getCompletedWorkout(reads: ReadStore, caller: Caller, workoutId: string): Promise<{ workout: WorkoutDetail }> {
  const athleteId = caller.athlete.athlete_id;
  // Read in the caller's own partition: another athlete's id is as absent as a made-up one.
  const [summary, detail] = await Promise.all([
    reads.get<WorkoutSummaryDoc>(WORKOUTS, athleteId, workoutId),
    reads.get<WorkoutDetailDoc>(WORKOUT_DETAILS, athleteId, workoutId),
  ]);
  if (!summary || !detail) throw new ApiError('not_found', `no completed workout ${workoutId} in this record`);
  const exerciseIds = [...new Set(detail.exercises.map((e) => e.exercise_id))];
  const [exercises, records, feedback] = await Promise.all([
    reads.getMany<ItemDoc & RecordItem<'exercise'>>('exercises', athleteId, exerciseIds),
    reads.getMany<RecordEntryDoc>(RECORD_INDICATORS, athleteId, exerciseIds.map((id) => `${workoutId}:${id}`)),
    reads.get<ItemDoc & RecordItem<'feedback'>>('feedback', athleteId, workoutId),
  ]);
  const exerciseById = new Map(exercises.map((e) => [e.id, e]));
  const recordsByExercise = new Map(records.map((r) => [r.exercise_id, r]));
  return {
    workout: {
      ...workoutSummary(summary),
      achieved_set_count: summary.achieved_set_count,
      feedback: feedback
        ? { difficulty: feedback.difficulty, next_time_intent: feedback.next_time_intent, recorded_at: feedback.recorded_at, provenance: 'self_reported' }
        : null,
      exercises: [...detail.exercises]
        .sort((a, b) => a.exercise_order - b.exercise_order)
        .map((e) => {
          const exercise = exerciseById.get(e.exercise_id);
          const record = recordsByExercise.get(e.exercise_id);
          return {
            exercise_id: e.exercise_id,
            name: recordText(exercise?.name ?? 'Unknown exercise'),
            muscle_group: exercise?.muscle_group ?? null,
            tracking_type: exercise?.tracking_type ?? 'weight_reps',
            exercise_order: e.exercise_order,
            superset_id: e.superset_id,
            sets: [...e.sets]
              .sort((a, b) => a.position - b.position)
              .map((s) => ({
                position: s.position,
                set_number: s.set_number,
                set_type: s.set_type,
                parent_position: s.parent_position,
                // Sets change only with their workout, so the workout's revision versions their structure.
                structure_version: summary.revision,
                ...performanceOf(s),
                target_rpe: s.target_rpe,
                target_rpe_provenance: 'prescribed' as const,
                historical_record_at_completion: {
                  indicators: record?.labels[setKey(e.exercise_order, s.position)] ?? [],
                  metadata: {
                    provenance: 'derived' as const,
                    calculation_version: 'historical-record-at-completion.v1' as const,
                    computed_at: record?.computed_at ?? summary.updated_at,
                    baseline: 'eligible_prior_sets_before_workout_completion' as const,
                    sample_count: record?.sample_count ?? 0,
                  },
                },
                provenance: 'recorded' as const,
              })),
          };
        }),
    },
  };
}
