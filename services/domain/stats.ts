// Training stats (spec 4.4): only completed workouts count; a workout's local date is its start,
// else its creation, in the record timezone; weeks run Monday to Sunday and are active with at
// least one workout; a streak is current when its latest active week is this week or the last.
import { addDays, dayNumber, weekStart } from './time.ts';

export interface Streak {
  /** Consecutive active weeks ending at the latest active week (not after this week). */
  weeks: number;
  current: boolean;
  /** Monday of the first week of the run; null without active weeks. */
  from: string | null;
}

/** A run of consecutive active weeks, by their Mondays, both ends included. */
export interface WeekRun {
  from: string;
  to: string;
}

/**
 * The streak from the latest run of active weeks that began by last week (it may reach past it)
 * and whether this week is active so far: a workout dated later this week does not count yet.
 */
export function weeklyStreak(latestRun: WeekRun | null, thisWeekActive: boolean, today: string): Streak {
  const thisWeek = weekStart(today);
  const lastWeek = addDays(thisWeek, -7);
  const end = latestRun && (latestRun.to < lastWeek ? latestRun.to : lastWeek);
  const weeksFrom = (from: string, to: string) => (dayNumber(to) - dayNumber(from)) / 7 + 1;
  if (thisWeekActive) {
    return latestRun && end === lastWeek
      ? { weeks: weeksFrom(latestRun.from, thisWeek), current: true, from: latestRun.from }
      : { weeks: 1, current: true, from: thisWeek };
  }
  if (!latestRun || !end) return { weeks: 0, current: false, from: null };
  return { weeks: weeksFrom(latestRun.from, end), current: end === lastWeek, from: latestRun.from };
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
