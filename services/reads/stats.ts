// Training stats (spec 4.4 stats rules) as both APIs read them: this week, the 30 local days ending
// today, and the weekly streak, from the activity read models. The Agent Access snapshot and the
// Read API's /api/v1/stats both call this, so a bot and an agent never see different numbers.
import { ACTIVITY_DAYS, ACTIVITY_RUNS, type ActivityDayDoc, type ActivityRunDoc } from '../../projections/activity.ts';
import { recentCounts, weeklyStreak, type Counts, type Streak } from '../domain/stats.ts';
import { addDays, todayIn, weekStart } from '../domain/time.ts';
import type { ReadStore } from '../store/read-store.ts';

/** Local days the rolling count covers, today included. */
export const ROLLING_DAYS = 30;

export interface TrainingStats {
  /** Local dates in the record timezone. */
  today: string;
  /** Monday of this week. */
  monday: string;
  /** First day of the rolling 30 days. */
  from30: string;
  /** The activity documents of those 30 days (only days with a workout have one). */
  days: ActivityDayDoc[];
  counts: Counts;
  streak: Streak;
}

export async function trainingStats(reads: ReadStore, athleteId: string, timezone: string, now: Date): Promise<TrainingStats> {
  const today = todayIn(timezone, now.getTime());
  const monday = weekStart(today);
  const from30 = addDays(today, -(ROLLING_DAYS - 1));
  const [days, runs] = await Promise.all([
    reads.page<ActivityDayDoc>(ACTIVITY_DAYS, {
      partition: athleteId,
      index: 'by_id',
      direction: 'asc',
      range: { gte: from30, lte: today },
      limit: ROLLING_DAYS,
    }),
    // The latest run of active weeks that began by last week.
    reads.page<ActivityRunDoc>(ACTIVITY_RUNS, { partition: athleteId, index: 'by_id', direction: 'desc', range: { lte: addDays(monday, -7) }, limit: 1 }),
  ]);
  const counts = recentCounts(new Map(days.map((d) => [d.id, d.workouts])), today);
  // This week is active only through workouts dated up to today, which the day documents tell.
  const streak = weeklyStreak(runs[0] ? { from: runs[0].id, to: runs[0].to } : null, counts.thisWeek > 0, today);
  return { today, monday, from30, days, counts, streak };
}
