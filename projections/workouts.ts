// Completed workouts: a small summary per workout for lists and the full detail for single reads
// (each exercise's history is the record projection's entries: records.ts). The workout's local
// date is its start, else its creation, in the record timezone (spec 4.4, stats rule 2), and moves
// when the athlete changes timezone.
import type { RecordItem, WorkoutSet } from '../contracts/record.ts';
import { localDateOf } from '../services/domain/time.ts';
import { timezoneOf } from './athletes.ts';
import { applyItemChange, type ItemDoc } from './items.ts';
import { athleteOf, BY_ID, changedAt, firstCreatedAt, rebucketLocalDates, type Projection } from './projection.ts';

export const WORKOUTS = 'workouts';
export const WORKOUT_DETAILS = 'workout_details';

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

/** `duration.v1`: recorded start to end, whole seconds; unknown without a recorded start. */
export function durationV1(w: Pick<RecordItem<'workout'>, 'started_at' | 'ended_at'>, computedAt: string): WorkoutDuration {
  if (w.started_at === null) return { seconds: null, basis: 'unknown', sample_count: 0, computed_at: computedAt };
  const seconds = Math.max(0, Math.floor((Date.parse(w.ended_at) - Date.parse(w.started_at)) / 1000));
  return { seconds, basis: 'recorded_start', sample_count: 2, computed_at: computedAt };
}

export const isAchieved = (s: WorkoutSet) => s.completed;

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
