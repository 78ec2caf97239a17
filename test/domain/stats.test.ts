// The stats rules of spec 4.4 against a brute-force statement of them.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recentCounts, weeklyStreak } from '../../services/domain/stats.ts';
import { addDays, dayNumber, localDateOf, weekStart } from '../../services/domain/time.ts';

/** Brute force: Monday-based week index of a date, by counting days from a known Monday. */
const weekIndex = (date: string) => Math.floor((dayNumber(date) - dayNumber('1970-01-05')) / 7);

function reference(dates: string[], today: string) {
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

function ours(dates: string[], today: string) {
  const byDate = new Map<string, number>();
  for (const d of dates) byDate.set(d, (byDate.get(d) ?? 0) + 1);
  const weeks = [...new Set(dates.filter((d) => d <= today).map(weekStart))].sort().reverse();
  const counts = recentCounts(byDate, today);
  const streak = weeklyStreak(weeks, today);
  return { thisWeek: counts.thisWeek, last30Days: counts.last30Days, weeks: streak.weeks, current: streak.current };
}

test('a week that spans the new year is one week; Sunday closes it', () => {
  // Monday 29 Dec 2025 to Sunday 4 Jan 2026.
  assert.equal(ours(['2025-12-29', '2026-01-04'], '2026-01-04'), { thisWeek: 2, last30Days: 2, weeks: 1, current: true });
  assert.equal(ours(['2025-12-29'], '2026-01-05'), { thisWeek: 0, last30Days: 1, weeks: 1, current: true }, 'last week keeps the streak current');
  assert.equal(ours(['2025-12-29'], '2026-01-12'), { thisWeek: 0, last30Days: 1, weeks: 1, current: false });
  assert.equal(ours(['2025-12-15', '2025-12-22', '2026-01-02'], '2026-01-02').weeks, 3);
  assert.equal(ours([], '2026-01-02'), { thisWeek: 0, last30Days: 0, weeks: 0, current: false });
});

test('property: counts and streaks match the rules for any set of workout dates', () => {
  const date = fc.integer({ min: dayNumber('2024-01-01'), max: dayNumber('2026-12-31') }).map((n) => new Date(n * 86_400_000).toISOString().slice(0, 10));
  fc.assert(fc.property(fc.array(date, { maxLength: 60 }), date, (dates, today) => assert.equal(ours(dates, today), reference(dates, today))), { numRuns: 1000 });
});

test('property: local dates across timezones and DST changes put each workout on one Monday-based week', () => {
  const zones = ['Europe/London', 'America/New_York', 'Australia/Sydney', 'Pacific/Chatham', 'Asia/Kolkata', 'America/Sao_Paulo'];
  fc.assert(
    fc.property(fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2027, 0, 1) }), fc.constantFrom(...zones), (ms, tz) => {
      const local = localDateOf(ms, tz);
      const monday = weekStart(local);
      assert.ok(dayNumber(local) - dayNumber(monday) >= 0 && dayNumber(local) - dayNumber(monday) < 7);
      assert.is(new Date(`${monday}T12:00:00Z`).getUTCDay(), 1, 'weeks start on Monday');
      assert.is(weekIndex(local), weekIndex(monday));
      assert.is(addDays(monday, 7) > local, true);
    }),
    { numRuns: 1000 },
  );
});

test.run();
