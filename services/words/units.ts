// How the pages show canonical values (kilograms, metres, seconds) in the athlete's units, and
// dates in words. Pure functions: the record itself is never converted, only what is shown.
import { KG_PER_LB, KG_PER_STONE } from '../../contracts/common.ts';
import type { Profile } from '../../contracts/record.ts';

export type WeightUnit = Profile['unit_preference'];
export type BodyweightUnit = Profile['bodyweight_unit_preference'];
export type HeightUnit = Profile['height_unit_preference'];

const METRES_PER_INCH = 0.0254;
const METRES_PER_MILE = 1609.344;

/** At most `digits` decimals, without trailing zeros: 100, 102.5, 0.75. */
export function trim(value: number, digits: number): string {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** A lifted weight: kilograms to two decimals (plates go to 1.25 kg), pounds to one. */
export function weight(kg: number, unit: WeightUnit): string {
  return unit === 'lbs' ? `${trim(kg / KG_PER_LB, 1)} lb` : `${trim(kg, 2)} kg`;
}

/** The number alone, in the athlete's weight unit (chart axes and tables name the unit once). */
export function weightValue(kg: number, unit: WeightUnit): number {
  return unit === 'lbs' ? Math.round((kg / KG_PER_LB) * 10) / 10 : Math.round(kg * 100) / 100;
}

export const weightUnitName = (unit: WeightUnit) => (unit === 'lbs' ? 'lb' : 'kg');

/** Bodyweight in kilograms, pounds, or stones and pounds (12 st 8.2 lb). */
export function bodyweight(kg: number, unit: BodyweightUnit): string {
  if (unit === 'kg') return `${trim(kg, 1)} kg`;
  if (unit === 'lbs') return `${trim(kg / KG_PER_LB, 1)} lb`;
  let stones = Math.floor(kg / KG_PER_STONE);
  let pounds = Math.round(((kg - stones * KG_PER_STONE) / KG_PER_LB) * 10) / 10;
  if (pounds >= 14) {
    stones += 1;
    pounds -= 14;
  }
  return `${stones} st ${trim(pounds, 1)} lb`;
}

/** Bodyweight as a number for charts: kilograms or pounds (stones chart in pounds). */
export function bodyweightValue(kg: number, unit: BodyweightUnit): { value: number; unit: string } {
  return unit === 'kg' ? { value: Math.round(kg * 10) / 10, unit: 'kg' } : { value: Math.round((kg / KG_PER_LB) * 10) / 10, unit: 'lb' };
}

/** A body length (height, waist, arm…): centimetres, or feet and inches / inches. */
export function length(metres: number, unit: HeightUnit, isHeight = false): string {
  if (unit === 'cm') return `${trim(metres * 100, 1)} cm`;
  const inches = metres / METRES_PER_INCH;
  if (!isHeight) return `${trim(inches, 1)} in`;
  let feet = Math.floor(inches / 12);
  let rest = Math.round(inches - feet * 12);
  if (rest === 12) {
    feet += 1;
    rest = 0;
  }
  return `${feet} ft ${rest} in`;
}

/** A distance covered: metres or kilometres with kilograms, miles with pounds. */
export function distance(metres: number, unit: WeightUnit): string {
  if (unit === 'lbs') return `${trim(metres / METRES_PER_MILE, 2)} mi`;
  return metres < 1000 ? `${trim(metres, 0)} m` : `${trim(metres / 1000, 2)} km`;
}

/** A length of time: 45 s, 3:05, 1:02:03. */
export function clock(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** A workout's length in words: 52 min, 1 h 5 min. */
export function duration(seconds: number | null): string | null {
  if (seconds === null) return null;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const shortDateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A local date (YYYY-MM-DD) in words: Mon 1 Jun 2026. */
export function localDate(date: string): string {
  return dateFormat.format(new Date(`${date}T00:00:00Z`));
}

/** A local date without its weekday: 1 Jun 2026. */
export function shortDate(date: string): string {
  return shortDateFormat.format(new Date(`${date}T00:00:00Z`));
}

const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of an instant in the record timezone: 07:30. */
export function timeOfDay(instant: string, timezone: string): string {
  let f = timeFormats.get(timezone);
  if (!f) timeFormats.set(timezone, (f = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: timezone })));
  return f.format(new Date(instant));
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** An instant as date and time in the record timezone: 1 Jun 2026, 07:30. A formatter costs ~70 µs to make: one per zone is kept. */
export function dateTime(instant: string, timezone: string): string {
  let f = dateTimeFormats.get(timezone);
  if (!f) dateTimeFormats.set(timezone, (f = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone })));
  return f.format(new Date(instant));
}

/** "1 workout", "3 workouts". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;
}
