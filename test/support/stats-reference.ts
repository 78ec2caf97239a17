// The stats rules of spec 4.4 stated by brute force, for tests to hold the real code against.
import { dayNumber } from '../../services/domain/time.ts';

/** Monday-based week index of a date, by counting days from a known Monday. */
export const weekIndex = (date: string) => Math.floor((dayNumber(date) - dayNumber('1970-01-05')) / 7);

/** Counts and streak for workouts on `dates` (local dates), seen on `today`. */
export function referenceStats(dates: string[], today: string) {
  const todayWeek = weekIndex(today);
  const past = dates.filter((d) => d <= today);
  const active = new Set(past.map(weekIndex));
  const latest = Math.max(-Infinity, ...active);
  let weeks = 0;
  if (active.size) for (let w = latest; active.has(w); w--) weeks++;
  return {
    thisWeek: past.filter((d) => weekIndex(d) === todayWeek).length,
    last30Days: past.filter((d) => dayNumber(today) - dayNumber(d) < 30).length,
    weeks,
    current: active.size > 0 && (latest === todayWeek || latest === todayWeek - 1),
  };
}
