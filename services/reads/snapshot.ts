// get_training_snapshot: counts, streak, exercise frequency, active goals and recent feedback,
// from the activity, goals and feedback read models (a few documents, not the history). The counts
// and the streak are trainingStats', which the Read API's /api/v1/stats serves too.
import type { DerivedMetricMetadata, Goal, TrainingSnapshot } from '../../contracts/agent-access.ts';
import type { RecordItem } from '../../contracts/record.ts';
import type { ItemDoc } from '../../projections/items.ts';
import { ITEM_COLLECTIONS } from '../../projections/items.ts';
import type { RecordOwner } from './owner.ts';
import type { ReadStore } from '../store/read-store.ts';
import { trainingStats } from './stats.ts';
import { recordText, UNKNOWN_EXERCISE } from './text.ts';

export const STATS_VERSION = 'training-stats.v1';
export const FREQUENCY_VERSION = 'exercise-frequency.v1';
const FREQUENCY_ITEMS = 10;
const GOALS = 10;
const FEEDBACK = 5;

type GoalDoc = ItemDoc & RecordItem<'goal'> & { canonical_target_value: number; canonical_target_unit: Goal['canonical_target_unit'] };

export async function getTrainingSnapshot(reads: ReadStore, owner: RecordOwner, now: Date): Promise<TrainingSnapshot> {
  const athleteId = owner.athleteId;
  const computedAt = now.toISOString();
  const [{ today, monday, from30, days, counts, streak }, goals, feedback] = await Promise.all([
    trainingStats(reads, athleteId, owner.timezone, now),
    reads.page<GoalDoc>(ITEM_COLLECTIONS.goal, { partition: athleteId, index: 'by_status', prefix: ['active'], direction: 'desc', limit: GOALS }),
    reads.page<ItemDoc & RecordItem<'feedback'>>('feedback', { partition: athleteId, index: 'by_recorded', direction: 'desc', limit: FEEDBACK }),
  ]);
  const meta = (version: string, from: string, to: string, sampleCount: number): DerivedMetricMetadata => ({
    provenance: 'derived',
    calculation_version: version,
    computed_at: computedAt,
    window: { from, to },
    sample_count: sampleCount,
  });

  const frequency = new Map<string, { sessions: number; sets: number }>();
  for (const d of days) {
    for (const [id, c] of Object.entries(d.exercises)) {
      const f = frequency.get(id) ?? { sessions: 0, sets: 0 };
      frequency.set(id, { sessions: f.sessions + c.sessions, sets: f.sets + c.sets });
    }
  }
  const top = [...frequency].sort(([a, x], [b, y]) => y.sessions - x.sessions || y.sets - x.sets || (a < b ? -1 : 1)).slice(0, FREQUENCY_ITEMS);
  const names = new Map(
    (
      await reads.getMany<ItemDoc & RecordItem<'exercise'>>(
        'exercises',
        athleteId,
        top.map(([id]) => id),
      )
    ).map((e) => [e.id, e.name]),
  );

  return {
    summary: {
      workouts_this_week: { value: counts.thisWeek, metadata: meta(STATS_VERSION, monday, today, counts.thisWeek) },
      workouts_last_30_days: { value: counts.last30Days, metadata: meta(STATS_VERSION, from30, today, counts.last30Days) },
      consecutive_active_weeks: { value: streak.weeks, metadata: meta(STATS_VERSION, streak.from ?? monday, today, streak.weeks) },
      streak_is_current: { value: streak.current, metadata: meta(STATS_VERSION, streak.from ?? monday, today, streak.weeks) },
    },
    exercise_frequency: top.map(([id, f]) => ({
      exercise_id: id,
      name: recordText(names.get(id) ?? UNKNOWN_EXERCISE),
      completed_sessions: f.sessions,
      achieved_sets: f.sets,
      metadata: meta(FREQUENCY_VERSION, from30, today, f.sessions),
    })),
    goals: goals.map((g) => ({
      id: g.id,
      goal_type: g.goal_type,
      status: g.status,
      exercise_id: g.exercise_id,
      target_value: g.target_value,
      target_unit: g.target_unit,
      canonical_target_value: g.canonical_target_value,
      canonical_target_unit: g.canonical_target_unit,
      achieved_at: g.achieved_at,
      created_at: g.created_at,
      updated_at: g.updated_at,
      provenance: 'prescribed',
    })),
    recent_feedback: feedback.map((f) => ({
      workout_id: f.id,
      difficulty: f.difficulty,
      next_time_intent: f.next_time_intent,
      recorded_at: f.recorded_at,
      provenance: 'self_reported',
    })),
  };
}
