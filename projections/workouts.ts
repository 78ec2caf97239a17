// Completed workouts: a small summary per workout for lists, the full detail for single reads,
// and per-exercise history. The workout's local date is its start, else its creation, in the
// record timezone (spec 4.4, stats rule 2), and moves when the athlete changes timezone.
import type { RecordItem, WorkoutSet } from '../contracts/record.ts';
import { localDateOf } from '../services/domain/time.ts';
import type { Doc, Documents } from '../services/store/read-store.ts';
import { timezoneOf } from './athletes.ts';
import { applyItemChange, type ItemDoc } from './items.ts';
import { athleteOf, BY_ID, changedAt, firstCreatedAt, rebucketLocalDates, type Projection } from './projection.ts';

export const WORKOUTS = 'workouts';
export const WORKOUT_DETAILS = 'workout_details';
export const EXERCISE_HISTORY = 'exercise_history';
const HISTORY_WORKOUTS = 'exercise_history_workouts';

export interface WorkoutDuration {
  seconds: number | null;
  basis: 'recorded_start' | 'unknown';
  sample_count: 0 | 2;
  computed_at: string;
}

export interface WorkoutSummaryDoc extends ItemDoc {
  title: string;
  started_at: string | null;
  ended_at: string;
  local_date: string;
  duration: WorkoutDuration;
  exercise_count: number;
  achieved_set_count: number;
}

export interface WorkoutDetailDoc extends ItemDoc {
  notes: string | null;
  exercises: RecordItem<'workout'>['exercises'];
  source: RecordItem<'workout'>['source'];
}

export interface ExerciseHistoryDoc extends Doc {
  exercise_id: string;
  workout_id: string;
  ended_at: string;
  /** The instant the local date comes from: the workout's start, else its creation. */
  local_basis: string;
  local_date: string;
  sets: WorkoutSet[];
}

/** `duration.v1`: recorded start to end, whole seconds; unknown without a recorded start. */
export function durationV1(w: Pick<RecordItem<'workout'>, 'started_at' | 'ended_at'>, computedAt: string): WorkoutDuration {
  if (w.started_at === null) return { seconds: null, basis: 'unknown', sample_count: 0, computed_at: computedAt };
  const seconds = Math.max(0, Math.floor((Date.parse(w.ended_at) - Date.parse(w.started_at)) / 1000));
  return { seconds, basis: 'recorded_start', sample_count: 2, computed_at: computedAt };
}

export const isAchieved = (s: WorkoutSet) => s.completed;

const byWorkout = { name: 'by_workout', fields: ['workout_id', 'id'] };

export const workoutsProjection: Projection = {
  name: 'workouts',
  collections: [
    {
      name: WORKOUTS,
      indexes: [BY_ID, { name: 'by_ended', fields: ['ended_at', 'id'] }, { name: 'by_local_date', fields: ['local_date', 'ended_at', 'id'] }],
    },
    { name: WORKOUT_DETAILS, indexes: [] },
  ],
  handles: (type) => type.startsWith('workout.') || type === 'athlete.profile_updated',
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    if (event.type === 'athlete.profile_updated') {
      await rebucketLocalDates<WorkoutSummaryDoc>(docs, WORKOUTS, athleteId, await timezoneOf(docs, athleteId), (w) => w.started_at ?? w.created_at);
      return;
    }
    const at = changedAt(event);
    const tz = await timezoneOf(docs, athleteId);
    await applyItemChange<'workout'>(event, docs, WORKOUTS, async (w) => {
      const createdAt = (await docs.get<ItemDoc>(WORKOUTS, athleteId, w.id))?.created_at ?? firstCreatedAt(event);
      const sets = w.exercises.flatMap((e) => e.sets);
      return {
        title: w.title,
        started_at: w.started_at,
        ended_at: w.ended_at,
        local_date: localDateOf(w.started_at ?? createdAt, tz),
        duration: durationV1(w, at),
        exercise_count: w.exercises.length,
        achieved_set_count: sets.filter(isAchieved).length,
      };
    });
    await applyItemChange<'workout'>(event, docs, WORKOUT_DETAILS, async (w) => ({ notes: w.notes, exercises: w.exercises, source: w.source }));
  },
};

export const exerciseHistoryProjection: Projection = {
  name: 'exercise_history',
  collections: [
    {
      name: EXERCISE_HISTORY,
      indexes: [
        byWorkout,
        { name: 'by_exercise', fields: ['exercise_id', 'ended_at', 'workout_id'] },
        { name: 'by_exercise_date', fields: ['exercise_id', 'local_date', 'ended_at', 'workout_id'] },
        BY_ID,
      ],
    },
    { name: HISTORY_WORKOUTS, indexes: [] },
  ],
  handles: (type) => type.startsWith('workout.') || type === 'athlete.profile_updated',
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    const tz = await timezoneOf(docs, athleteId);
    if (event.type === 'athlete.profile_updated') {
      await rebucketLocalDates<ExerciseHistoryDoc>(docs, EXERCISE_HISTORY, athleteId, tz, (h) => h.local_basis);
      return;
    }
    const data = event.data as { item?: RecordItem<'workout'>; id?: string };
    const workoutId = data.item?.id ?? data.id!;
    if (event.type !== 'workout.created') await docs.deleteWhere(EXERCISE_HISTORY, athleteId, byWorkout.name, [workoutId]);
    if (!data.item) {
      await docs.delete(HISTORY_WORKOUTS, athleteId, workoutId);
      return;
    }
    // The workout's creation time, kept even while it has no exercises: the local-date basis
    // when it has no start, exactly as the workouts projection uses it.
    let created = await docs.get<{ id: string; created_at: string }>(HISTORY_WORKOUTS, athleteId, workoutId);
    if (!created) {
      created = { id: workoutId, created_at: firstCreatedAt(event) };
      await docs.upsert(HISTORY_WORKOUTS, athleteId, created);
    }
    const localBasis = data.item.started_at ?? created.created_at;
    await writeHistory(docs, athleteId, data.item, localBasis, localDateOf(localBasis, tz));
  },
};

async function writeHistory(docs: Documents, athleteId: string, w: RecordItem<'workout'>, localBasis: string, localDate: string) {
  // An exercise listed twice in one workout is one history entry, its sets in workout order.
  const byExercise = new Map<string, WorkoutSet[]>();
  for (const e of [...w.exercises].sort((a, b) => a.exercise_order - b.exercise_order)) {
    byExercise.set(e.exercise_id, [...(byExercise.get(e.exercise_id) ?? []), ...e.sets]);
  }
  for (const [exerciseId, sets] of byExercise) {
    await docs.upsert(EXERCISE_HISTORY, athleteId, {
      id: `${w.id}:${exerciseId}`,
      exercise_id: exerciseId,
      workout_id: w.id,
      ended_at: w.ended_at,
      local_basis: localBasis,
      local_date: localDate,
      sets,
    });
  }
}
