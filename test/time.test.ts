import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import {
  addDays,
  dateOfDayNumber,
  dayNumber,
  localDateOf,
  localPartsFromParts,
  localPartsFromText,
  todayIn,
  weekStart,
  zonedTimeToUtc,
} from '../services/domain/time.ts';

const at = (y: number, mo: number, d: number, h: number, mi = 0) => ({ year: y, month: mo, day: d, hour: h, minute: mi, second: 0 });

test('wall-clock times become UTC instants in zones east and west of UTC', () => {
  assert.is(zonedTimeToUtc(at(2024, 7, 1, 8), 'Europe/London'), '2024-07-01T07:00:00.000Z');
  assert.is(zonedTimeToUtc(at(2024, 1, 1, 8), 'Europe/London'), '2024-01-01T08:00:00.000Z');
  assert.is(zonedTimeToUtc(at(2024, 7, 1, 8), 'America/New_York'), '2024-07-01T12:00:00.000Z');
  assert.is(zonedTimeToUtc(at(2024, 1, 1, 8), 'Asia/Kolkata'), '2024-01-01T02:30:00.000Z');
  assert.is(zonedTimeToUtc(at(2024, 1, 1, 0, 30), 'Pacific/Kiritimati'), '2023-12-31T10:30:00.000Z');
});

test('a time skipped by a DST jump moves forward by the gap', () => {
  assert.is(zonedTimeToUtc(at(2024, 3, 31, 1, 30), 'Europe/London'), '2024-03-31T01:30:00.000Z'); // 02:30 BST
  assert.is(zonedTimeToUtc(at(2024, 3, 31, 2, 30), 'Europe/Berlin'), '2024-03-31T01:30:00.000Z'); // 03:30 CEST
  assert.is(zonedTimeToUtc(at(2024, 3, 10, 2, 30), 'America/New_York'), '2024-03-10T07:30:00.000Z'); // 03:30 EDT
});

test('a repeated hour resolves to its first occurrence', () => {
  assert.is(zonedTimeToUtc(at(2024, 10, 27, 1, 30), 'Europe/London'), '2024-10-27T00:30:00.000Z');
  assert.is(zonedTimeToUtc(at(2024, 11, 3, 1, 30), 'America/New_York'), '2024-11-03T05:30:00.000Z');
});

/**
 * An independent oracle: Temporal (the polyfill, a test-only dependency) with `compatible`
 * disambiguation, which states the same rule: a skipped time moves forward by the gap, a repeated
 * one takes its first occurrence.
 */
function oracle(local: ReturnType<typeof at>, timeZone: string): string {
  return new Date(Temporal.PlainDateTime.from(local).toZonedDateTime(timeZone, { disambiguation: 'compatible' }).epochMilliseconds).toISOString();
}

/** The zones at the edges of the offset range: +12:45/+13:45, +13, +14, -11, -12, and a few familiar ones. */
const EDGE_ZONES = [
  'Pacific/Chatham',
  'Pacific/Auckland',
  'Pacific/Tongatapu',
  'Pacific/Apia',
  'Pacific/Fakaofo',
  'Pacific/Kiritimati',
  'Etc/GMT-14',
  'Etc/GMT+12',
  'Pacific/Pago_Pago',
  'Pacific/Niue',
  'Europe/London',
  'America/Santiago',
  'Australia/Lord_Howe',
];

test('zones east of UTC+12 and west of UTC-10 agree with Temporal around every transition, 1995-2035', () => {
  let checked = 0;
  for (const zone of EDGE_ZONES) {
    let cursor: Temporal.ZonedDateTime | null = Temporal.ZonedDateTime.from({ year: 1995, month: 1, day: 1, timeZone: zone });
    const end = Temporal.ZonedDateTime.from({ year: 2035, month: 12, day: 31, timeZone: zone });
    let transitions = 0;
    while ((cursor = cursor.getTimeZoneTransition('next')) && Temporal.ZonedDateTime.compare(cursor, end) < 0) {
      transitions++;
      // Wall times every 15 minutes from 3 hours before the transition's local time to 3 hours after.
      const wall = cursor.toPlainDateTime();
      for (let minutes = -180; minutes <= 180; minutes += 15) {
        const t = wall.add({ minutes });
        const local = at(t.year, t.month, t.day, t.hour, t.minute);
        assert.is(zonedTimeToUtc(local, zone), oracle(local, zone), `${zone} ${t.toString()}`);
        checked++;
      }
    }
    if (!zone.startsWith('Etc/') && zone !== 'Pacific/Kiritimati' && zone !== 'Pacific/Niue' && zone !== 'Pacific/Pago_Pago')
      assert.ok(transitions > 0, `${zone} has transitions`);
  }
  assert.ok(checked > 5000, `${checked} wall times checked`);
});

test('property: any wall time in any edge zone agrees with Temporal', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...EDGE_ZONES),
      fc.record({
        year: fc.integer({ min: 1990, max: 2040 }),
        month: fc.integer({ min: 1, max: 12 }),
        day: fc.integer({ min: 1, max: 28 }),
        hour: fc.integer({ min: 0, max: 23 }),
        minute: fc.integer({ min: 0, max: 59 }),
      }),
      (zone, w) => {
        const local = at(w.year, w.month, w.day, w.hour, w.minute);
        assert.is(zonedTimeToUtc(local, zone), oracle(local, zone), `${zone} ${JSON.stringify(w)}`);
      },
    ),
    { numRuns: 3000 },
  );
});

test('the cases the audit named: Auckland in summer, Chatham, Apia', () => {
  // Auckland, UTC+13 in summer: the repeated hour's first pass, and a skipped time moved forward.
  assert.is(zonedTimeToUtc(at(2024, 4, 7, 2, 30), 'Pacific/Auckland'), '2024-04-06T13:30:00.000Z');
  assert.is(zonedTimeToUtc(at(2024, 9, 29, 2, 30), 'Pacific/Auckland'), '2024-09-28T14:30:00.000Z');
  // Chatham, +13:45 in summer.
  assert.is(zonedTimeToUtc(at(2024, 1, 15, 12, 0), 'Pacific/Chatham'), '2024-01-14T22:15:00.000Z');
  // Apia skipped 30 December 2011 altogether, moving from -10 to +14.
  assert.is(zonedTimeToUtc(at(2011, 12, 31, 12, 0), 'Pacific/Apia'), '2011-12-30T22:00:00.000Z');
});

test('every instant round-trips through its local wall-clock time (outside DST gaps)', () => {
  const zones = ['Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC', 'America/Santiago'];
  fc.assert(
    fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), fc.constantFrom(...zones), (ms, tz) => {
      const instant = Math.floor(ms / 1000) * 1000;
      const f = new Intl.DateTimeFormat('en-CA', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
      const p = Object.fromEntries(
        f
          .formatToParts(instant)
          .filter((x) => x.type !== 'literal')
          .map((x) => [x.type, Number(x.value)]),
      );
      const back = Date.parse(zonedTimeToUtc({ year: p.year!, month: p.month!, day: p.day!, hour: p.hour!, minute: p.minute!, second: p.second! }, tz));
      // In a repeated hour the first occurrence wins, which is at most the instant itself.
      assert.ok(back === instant || (back < instant && instant - back <= 3 * 3600_000), `${tz} ${new Date(instant).toISOString()}`);
      assert.is(localDateOf(back, tz), localDateOf(instant, tz));
    }),
  );
});

test("today's remembered day answers exactly as localDateOf, across DST days and midnight transitions", () => {
  // Santiago changes offset at midnight, Lord Howe by half an hour, Kathmandu is +05:45.
  const zones = ['Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC', 'America/Santiago', 'Pacific/Kiritimati'];
  // Days with a transition in them, so that the spans around them are probed minute by minute.
  const transitions = [
    Date.UTC(2024, 2, 31, 1),
    Date.UTC(2024, 9, 27, 1),
    Date.UTC(2024, 3, 7, 3),
    Date.UTC(2024, 8, 8, 4),
    Date.UTC(2024, 3, 6, 15),
    Date.UTC(2024, 9, 5, 15, 30),
  ];
  const start = fc.oneof(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), fc.constantFrom(...transitions));
  // A walk of "now"s as a server sees them: mostly forward, by seconds to a day and a half.
  const steps = fc.array(fc.integer({ min: -60_000, max: 36 * 3600_000 }), { minLength: 1, maxLength: 60 });
  fc.assert(
    fc.property(start, steps, fc.constantFrom(...zones), (first, moves, tz) => {
      let now = first;
      for (const move of moves) {
        now += move;
        assert.is(todayIn(tz, now), localDateOf(now, tz), `${tz} ${new Date(now).toISOString()}`);
      }
    }),
    { numRuns: 300 },
  );
  // Every minute around midnight and the transitions of two zones, in order.
  for (const [tz, from] of [
    ['America/Santiago', Date.UTC(2024, 8, 8, 2)],
    ['Australia/Lord_Howe', Date.UTC(2024, 3, 6, 13)],
    ['Europe/London', Date.UTC(2024, 2, 30, 22)],
  ] as const) {
    for (let now = from; now < from + 6 * 3600_000; now += 60_000) assert.is(todayIn(tz, now), localDateOf(now, tz), `${tz} ${new Date(now).toISOString()}`);
  }
});

test('day numbers agree with the calendar of Date, both ways, for years 0001-9999', () => {
  const first = Math.floor(Date.parse('0001-01-01T00:00:00Z') / 86_400_000);
  const last = Math.floor(Date.parse('9999-12-31T00:00:00Z') / 86_400_000);
  const isoDate = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10);
  const check = (n: number) => {
    const date = isoDate(n);
    assert.is(dateOfDayNumber(n), date, `day ${n}`);
    assert.is(dayNumber(date), n, date);
  };
  fc.assert(fc.property(fc.integer({ min: first, max: last }), check), { numRuns: 5000 });
  // Every day around the edges of eras, centuries, leap days and the epoch.
  for (const around of ['0001-01-01', '1600-02-28', '1700-02-28', '1899-12-31', '1969-12-31', '2000-02-28', '2100-02-28', '9999-12-01']) {
    const n = Math.floor(Date.parse(`${around}T00:00:00Z`) / 86_400_000);
    for (let d = Math.max(first, n - 3); d <= Math.min(last, n + 35); d++) check(d);
  }
});

test('local dates follow the zone, not UTC', () => {
  assert.is(localDateOf('2024-01-01T23:30:00Z', 'Europe/Berlin'), '2024-01-02');
  assert.is(localDateOf('2024-01-01T03:30:00Z', 'America/Los_Angeles'), '2023-12-31');
});

test('weeks start on Monday, across month and year boundaries', () => {
  assert.is(weekStart('2024-01-01'), '2024-01-01'); // a Monday
  assert.is(weekStart('2024-01-07'), '2024-01-01'); // Sunday of that week
  assert.is(weekStart('2025-01-01'), '2024-12-30'); // a Wednesday
  assert.is(addDays('2024-02-28', 1), '2024-02-29');
  assert.is(dayNumber('1970-01-02'), 1);
});

test("the local time read off the formatter's text equals the one from its typed parts, in any zone and year", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(
        'UTC',
        'Europe/Berlin',
        'America/St_Johns',
        'Asia/Kathmandu',
        'Pacific/Chatham',
        'Pacific/Apia',
        'America/Los_Angeles',
        'Australia/Lord_Howe',
      ),
      fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }),
      (zone, ms) => {
        assert.equal(localPartsFromText(ms, zone), localPartsFromParts(ms, zone));
      },
    ),
    { numRuns: 2000 },
  );
});

test.run();
