// Local dates and weeks in an athlete's IANA time zone, without a date library.
// Instants are ISO strings in UTC; local dates are YYYY-MM-DD.

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * Whether the formatter writes year, month, day, hour, minute and second in that order with Latin
 * digits ("2001-02-03, 04:05:06" in en-CA), as the locale data Node ships says. Checked once on a
 * known instant rather than assumed: if it does not, the slower parts API is used.
 */
let formatInOrder: boolean | null = null;

function numbersOf(text: string): number[] {
  const out: number[] = [];
  let current = -1;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit >= 0 && digit <= 9) current = current < 0 ? digit : current * 10 + digit;
    else if (current >= 0) {
      out.push(current);
      current = -1;
    }
  }
  if (current >= 0) out.push(current);
  return out;
}

export function localParts(epochMs: number, timeZone: string): LocalDateTime {
  // `format` costs under half of `formatToParts`, which builds an object per part; an import
  // converts every workout's times and projects each workout's local date several times.
  formatInOrder ??= numbersOf(partsFormatter('UTC').format(Date.UTC(2001, 1, 3, 4, 5, 6))).join() === '2001,2,3,4,5,6';
  return formatInOrder ? localPartsFromText(epochMs, timeZone) : localPartsFromParts(epochMs, timeZone);
}

/** The local wall-clock time read off the formatter's text; right only where `formatInOrder`. Exported for its test. */
export function localPartsFromText(epochMs: number, timeZone: string): LocalDateTime {
  const [year, month, day, hour, minute, second] = numbersOf(partsFormatter(timeZone).format(epochMs)) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second };
}

/** The local wall-clock time from the formatter's typed parts, whatever their order. Exported for its test. */
export function localPartsFromParts(epochMs: number, timeZone: string): LocalDateTime {
  const out: Record<string, number> = {};
  for (const p of partsFormatter(timeZone).formatToParts(new Date(epochMs))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour!,
    minute: out.minute!,
    second: out.second!,
  };
}

/** The local calendar date of an instant in a time zone. */
export function localDateOf(instant: string | number, timeZone: string): string {
  const ms = typeof instant === 'number' ? instant : Date.parse(instant);
  const p = localParts(ms, timeZone);
  // Four digits always: the year 999 is 0999, or the date would not parse again.
  return `${String(p.year).padStart(4, '0')}-${pad(p.month)}-${pad(p.day)}`;
}

/** Per zone, the instants [from, to) of one local day, and whether the zone's offset changes in it. */
const knownDays = new Map<string, { date: string; from: number; to: number; offsetChanges: boolean }>();

/**
 * `localDateOf` for "now", which every list and snapshot asks for. Formatting costs a few
 * microseconds, so the zone's current day is remembered as a span of instants. On a day in which
 * the zone's offset changes (DST) the span is not trusted: each call asks `localDateOf`, as before.
 */
export function todayIn(timeZone: string, nowMs: number): string {
  const known = knownDays.get(timeZone);
  if (known && nowMs >= known.from && nowMs < known.to) return known.offsetChanges ? localDateOf(nowMs, timeZone) : known.date;
  const date = localDateOf(nowMs, timeZone);
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const from = Date.parse(zonedTimeToUtc({ year, month, day, hour: 0, minute: 0, second: 0 }, timeZone));
  const next = addDays(date, 1).split('-').map(Number) as [number, number, number];
  const to = Date.parse(zonedTimeToUtc({ year: next[0], month: next[1], day: next[2], hour: 0, minute: 0, second: 0 }, timeZone));
  // Zones move at most once a day: the same offset at both ends means none in between.
  if (nowMs >= from && nowMs < to) knownDays.set(timeZone, { date, from, to, offsetChanges: offsetMs(from, timeZone) !== offsetMs(to - 1, timeZone) });
  return date;
}

function offsetMs(epochMs: number, timeZone: string): number {
  const p = localParts(epochMs, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(epochMs / 1000) * 1000;
}

const PROBE_MS = 15 * 3600_000;

/**
 * The UTC instant of a wall-clock time in a time zone. A time skipped by a DST jump is moved
 * forward by the gap; an ambiguous time (the repeated hour) resolves to its first occurrence.
 */
export function zonedTimeToUtc(local: LocalDateTime, timeZone: string): string {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  // The instant is `wall` less the zone's offset, which runs from -12 h to +14 h: probing 15 hours
  // either side brackets it with room to spare, so the two probes read the offsets before and
  // after any transition near it (zones move at most once a day).
  const before = offsetMs(wall - PROBE_MS, timeZone);
  const after = offsetMs(wall + PROBE_MS, timeZone);
  const matches = [wall - before, wall - after].filter((c) => c + offsetMs(c, timeZone) === wall).sort((a, b) => a - b);
  // No match: the time fell in a gap; reading it with the offset before the jump moves it forward.
  return new Date(matches[0] ?? wall - before).toISOString();
}

/**
 * Days since 1970-01-01 of a local date: a plain day number for week and range arithmetic.
 * Calendar arithmetic (H. Hinnant's days_from_civil) rather than Date objects: every list and
 * snapshot does a few of these per request.
 */
export function dayNumber(date: string): number {
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  const year = Number(date.slice(0, 4)) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The local date (YYYY-MM-DD, years 0000-9999) of a day number: `dayNumber` inverted (civil_from_days). */
export function dateOfDayNumber(n: number): string {
  const z = n + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${pad(month)}-${pad(day)}`;
}

export function addDays(date: string, days: number): string {
  return dateOfDayNumber(dayNumber(date) + days);
}

/** The Monday that starts the (Monday-to-Sunday) week of a local date. */
export function weekStart(date: string): string {
  const n = dayNumber(date);
  const weekday = (((n + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday; 0 = Monday; n < 0 before 1970
  return dateOfDayNumber(n - weekday);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
