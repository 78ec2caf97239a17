// list_completed_workouts: completed workouts whose local date (start, else creation, in the
// record timezone) falls in the window, newest first (by local date, then end time, then id).
import type { KeyObject } from 'node:crypto';
import type { ListQuery, WorkoutDetail, WorkoutDuration, WorkoutSummary } from '../../contracts/agent-access.ts';
import type { RecordItem, WorkoutSet } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import { RECORD_INDICATORS, setKey, type RecordEntryDoc } from '../../projections/record-entries.ts';
import { WORKOUT_DETAILS, WORKOUTS, type WorkoutDetailDoc, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import { DomainError } from '../domain/errors.ts';
import type { Indicator } from '../domain/record-indicators.ts';
import type { RecordOwner } from './owner.ts';
import type { ReadStore } from '../store/read-store.ts';
import { performanceOf } from './exercise-history.ts';
import { recordText, UNKNOWN_EXERCISE } from './text.ts';
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

export async function listCompletedWorkouts(reads: ReadStore, owner: RecordOwner, query: ListQuery, now: Date, cursorKey: KeyObject) {
  const { window, docs, next_cursor } = await windowedPage<WorkoutSummaryDoc>(reads, owner, query, now, cursorKey, {
    operation: 'list_completed_workouts',
    collection: WORKOUTS,
    index: 'by_local_date',
    keyOf: (w) => [w.local_date, w.ended_at, w.id],
  });
  return { window, items: docs.map(workoutSummary), next_cursor };
}

type ExerciseDoc = ItemDoc & RecordItem<'exercise'>;
type FeedbackDoc = ItemDoc & RecordItem<'feedback'>;

/** One exercise of a loaded workout: its entry, the catalog exercise, and its record labels. */
export interface LoadedExercise {
  entry: RecordItem<'workout'>['exercises'][number];
  /** Null only if the catalog lost it (exercises are never deleted). */
  exercise: ExerciseDoc | null;
  record: RecordEntryDoc | null;
}

/** A completed workout as both APIs present it: exercises in workout order, sets by position. */
export interface LoadedWorkout {
  summary: WorkoutSummaryDoc;
  exercises: LoadedExercise[];
  feedback: FeedbackDoc | null;
}

/**
 * A completed workout with everything a detail read shows, or null if it is not in this athlete's
 * record. Read in the athlete's own partition: another athlete's id is as absent as a made-up one.
 */
export async function loadCompletedWorkout(reads: ReadStore, athleteId: string, workoutId: string): Promise<LoadedWorkout | null> {
  const [summary, detail] = await Promise.all([
    reads.get<WorkoutSummaryDoc>(WORKOUTS, athleteId, workoutId),
    reads.get<WorkoutDetailDoc>(WORKOUT_DETAILS, athleteId, workoutId),
  ]);
  if (!summary || !detail) return null;
  const exerciseIds = [...new Set(detail.exercises.map((e) => e.exercise_id))];
  const [exercises, records, feedback] = await Promise.all([
    reads.getMany<ExerciseDoc>(ITEM_COLLECTIONS.exercise, athleteId, exerciseIds),
    reads.getMany<RecordEntryDoc>(
      RECORD_INDICATORS,
      athleteId,
      exerciseIds.map((id) => `${workoutId}:${id}`),
    ),
    reads.get<FeedbackDoc>(ITEM_COLLECTIONS.feedback, athleteId, workoutId),
  ]);
  const exerciseById = new Map(exercises.map((e) => [e.id, e]));
  const recordsByExercise = new Map(records.map((r) => [r.exercise_id, r]));
  return {
    summary,
    feedback,
    exercises: [...detail.exercises]
      .sort((a, b) => a.exercise_order - b.exercise_order)
      .map((e) => ({
        entry: { ...e, sets: [...e.sets].sort((a, b) => a.position - b.position) },
        exercise: exerciseById.get(e.exercise_id) ?? null,
        record: recordsByExercise.get(e.exercise_id) ?? null,
      })),
  };
}

/** The record labels a set earned when it was completed (historical-record-at-completion.v1). */
export function indicatorsOf(e: LoadedExercise, set: WorkoutSet): Indicator[] {
  return e.record?.labels[setKey(e.entry.exercise_order, set.position)] ?? [];
}

/** get_completed_workout: the whole workout with its sets and their record indicators. */
export async function getCompletedWorkout(reads: ReadStore, owner: RecordOwner, workoutId: string): Promise<{ workout: WorkoutDetail }> {
  const loaded = await loadCompletedWorkout(reads, owner.athleteId, workoutId);
  if (!loaded) throw new DomainError('not_found', `no completed workout ${workoutId} in this record`);
  const { summary, feedback } = loaded;
  return {
    workout: {
      ...workoutSummary(summary),
      achieved_set_count: summary.achieved_set_count,
      feedback: feedback
        ? { difficulty: feedback.difficulty, next_time_intent: feedback.next_time_intent, recorded_at: feedback.recorded_at, provenance: 'self_reported' }
        : null,
      exercises: loaded.exercises.map((e) => ({
        exercise_id: e.entry.exercise_id,
        name: recordText(e.exercise?.name ?? UNKNOWN_EXERCISE),
        muscle_group: e.exercise?.muscle_group ?? null,
        tracking_type: e.exercise?.tracking_type ?? 'weight_reps',
        exercise_order: e.entry.exercise_order,
        superset_id: e.entry.superset_id,
        sets: e.entry.sets.map((s) => ({
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
            indicators: indicatorsOf(e, s),
            metadata: {
              provenance: 'derived' as const,
              calculation_version: 'historical-record-at-completion.v1' as const,
              computed_at: e.record?.computed_at ?? summary.updated_at,
              baseline: 'eligible_prior_sets_before_workout_completion' as const,
              sample_count: e.record?.sample_count ?? 0,
            },
          },
          provenance: 'recorded' as const,
        })),
      })),
    },
  };
}
