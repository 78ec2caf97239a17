// The stats rules of spec 4.4 against a brute-force statement of them.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recentCounts, weeklyStreak, type WeekRun } from '../../services/domain/stats.ts';
import { addDays, dayNumber, localDateOf, weekStart } from '../../services/domain/time.ts';
import { referenceStats as reference, weekIndex } from '../support/stats-reference.ts';

/** Runs of consecutive weeks, as the activity projection keeps them, oldest first. */
function runsOf(mondays: string[]): WeekRun[] {
  const runs: WeekRun[] = [];
  for (const monday of [...new Set(mondays)].sort()) {
    const last = runs.at(-1);
    if (last && addDays(last.to, 7) === monday) last.to = monday;
    else runs.push({ from: monday, to: monday });
  }
  return runs;
}

function ours(dates: string[], today: string) {
  const byDate = new Map<string, number>();
  for (const d of dates) byDate.set(d, (byDate.get(d) ?? 0) + 1);
  const counts = recentCounts(byDate, today);
  const lastWeek = addDays(weekStart(today), -7);
  const latestRun =
    runsOf(dates.map(weekStart))
      .filter((r) => r.from <= lastWeek)
      .at(-1) ?? null;
  const streak = weeklyStreak(latestRun, counts.thisWeek > 0, today);
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

test('weeks before 1970 start on Monday too', () => {
  assert.is(weekStart('1955-06-01'), '1955-05-30');
  assert.is(weekStart('1969-12-31'), '1969-12-29');
  assert.is(weekStart('1969-12-29'), '1969-12-29');
});

test('a local date always has a four-digit year, so that it parses again', () => {
  assert.is(localDateOf('0999-06-01T11:00:00Z', 'UTC'), '0999-06-01');
  assert.is(localDateOf('0099-06-01T11:00:00Z', 'Europe/Berlin'), '0099-06-01');
  assert.is(weekStart(localDateOf('0999-06-01T11:00:00Z', 'UTC')), '0999-05-27');
});

test('property: counts and streaks match the rules for any set of workout dates', () => {
  const date = fc.integer({ min: dayNumber('2024-01-01'), max: dayNumber('2026-12-31') }).map((n) => new Date(n * 86_400_000).toISOString().slice(0, 10));
  fc.assert(
    fc.property(fc.array(date, { maxLength: 60 }), date, (dates, today) => assert.equal(ours(dates, today), reference(dates, today))),
    { numRuns: 1000 },
  );
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
