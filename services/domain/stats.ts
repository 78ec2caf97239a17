// Training stats (spec 4.4): only completed workouts count; a workout's local date is its start,
// else its creation, in the record timezone; weeks run Monday to Sunday and are active with at
// least one workout; a streak is current when its latest active week is this week or the last.
import { addDays, weekStart } from './time.ts';

export interface Streak {
  /** Consecutive active weeks ending at the latest active week (not after this week). */
  weeks: number;
  current: boolean;
  /** Monday of the first week of the run; null without active weeks. */
  from: string | null;
}

/**
 * From active weeks (their Mondays), newest first, counting only workouts dated up to today: a
 * workout dated later this week does not make the week active. Weeks after this one are ignored.
 */
export function weeklyStreak(activeWeeksNewestFirst: string[], today: string): Streak {
  const thisWeek = weekStart(today);
  const weeks = activeWeeksNewestFirst.filter((w) => w <= thisWeek);
  if (weeks.length === 0) return { weeks: 0, current: false, from: null };
  let run = 1;
  while (run < weeks.length && weeks[run] === addDays(weeks[run - 1]!, -7)) run++;
  return { weeks: run, current: weeks[0] === thisWeek || weeks[0] === addDays(thisWeek, -7), from: weeks[run - 1]! };
}

export interface Counts {
  thisWeek: number;
  last30Days: number;
}

/** Workouts this week (Monday to today) and in the 30 local days ending today. */
export function recentCounts(workoutsByDate: ReadonlyMap<string, number>, today: string): Counts {
  const monday = weekStart(today);
  const from30 = addDays(today, -29);
  let thisWeek = 0;
  let last30Days = 0;
  for (const [date, n] of workoutsByDate) {
    if (date > today) continue;
    if (date >= monday) thisWeek += n;
    if (date >= from30) last30Days += n;
  }
  return { thisWeek, last30Days };
}
