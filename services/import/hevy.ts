// Hevy's workout CSV export (Settings > Export & Import Data): one row per set, the workout's
// fields repeated on every row. Times are the athlete's local wall clock without an offset.
import { zonedTimeToUtc, type LocalDateTime } from '../domain/time.ts';
import {
  BOUNDS,
  addSet,
  checkHasWorkouts,
  checkRange,
  checkTimeZone,
  checkTitle,
  checkWhole,
  distanceMetres,
  noteField,
  numberField,
  localTime,
  readCsvTable,
  TIME,
  weightKg,
  type CsvRow,
  type DistanceUnit,
  type ExerciseHead,
  type SetValues,
  type WeightUnit,
} from './csv.ts';
import { ImportRowError, type ParsedSet, type ParsedWorkout } from './types.ts';

const COLUMNS = [
  'title',
  'start_time',
  'end_time',
  'description',
  'exercise_title',
  'superset_id',
  'exercise_notes',
  'set_index',
  'set_type',
  'reps',
  'duration_seconds',
  'rpe',
] as const;
// Hevy names the weight and distance columns by the units the athlete chose in the app, each
// on its own (kilograms with miles happens): weight_kg or weight_lbs, distance_km or
// distance_miles. Durations are always seconds.
const WEIGHT = ['weight_kg', 'weight_lbs'] as const;
const DISTANCE = ['distance_km', 'distance_miles'] as const;
type Column = (typeof COLUMNS)[number] | (typeof WEIGHT)[number] | (typeof DISTANCE)[number];
type Row = CsvRow<Column>;

/** Which of its two columns the file has for each measure. */
interface Units {
  weight: { column: (typeof WEIGHT)[number]; unit: WeightUnit };
  distance: { column: (typeof DISTANCE)[number]; unit: DistanceUnit };
}

export interface HevyOptions {
  /** The athlete's IANA time zone: Hevy writes local times without an offset. */
  timezone: string;
}

export function parseHevy(text: string, options: HevyOptions): ParsedWorkout[] {
  checkTimeZone(options.timezone);
  const table = readCsvTable(text, { required: COLUMNS, optional: [...WEIGHT, ...DISTANCE], oneOf: [WEIGHT, DISTANCE], app: 'hevy' });
  const units = unitsOf(table.columns);
  // Keyed by the raw title and start text, so each workout's dates are converted once.
  const workouts = new Map<string, { workout: ParsedWorkout; first: Row }>();
  for (const row of table.rows) {
    const key = `${row.values.title.trim()}\u0000${row.values.start_time.trim()}`;
    let entry = workouts.get(key);
    if (!entry) {
      entry = { workout: workoutOf(row, options.timezone), first: row };
      workouts.set(key, entry);
    }
    checkSameEnd(row, entry.first);
    addSet(entry.workout, row.line, exerciseOf(row), setOf(row, units));
  }
  return checkHasWorkouts(
    [...workouts.values()].map((e) => e.workout),
    table,
  );
}

function unitsOf(columns: ReadonlySet<Column>): Units {
  return {
    weight: columns.has('weight_lbs') ? { column: 'weight_lbs', unit: 'lbs' } : { column: 'weight_kg', unit: 'kg' },
    distance: columns.has('distance_miles') ? { column: 'distance_miles', unit: 'mi' } : { column: 'distance_km', unit: 'km' },
  };
}

// Rows of one workout repeat its end; a different one means two workouts were mixed up.
function checkSameEnd(row: Row, first: Row): void {
  const end = row.values.end_time.trim();
  const expected = first.values.end_time.trim();
  if (end !== expected) {
    throw new ImportRowError(row.line, `end_time '${end}' differs from '${expected}' on line ${first.line}, the first row of this workout`);
  }
}

function workoutOf(row: Row, timeZone: string): ParsedWorkout {
  const { line, values } = row;
  const title = checkTitle(line, 'title', values.title);
  const start = instantField(line, 'start_time', values.start_time, timeZone);
  const end = instantField(line, 'end_time', values.end_time, timeZone);
  if (Date.parse(end) < Date.parse(start)) {
    throw new ImportRowError(line, `end_time before start_time ('${values.end_time}' < '${values.start_time}')`);
  }
  return {
    source_ref: `hevy:${start}:${title}`,
    title,
    started_at: start,
    ended_at: end,
    notes: noteField(line, 'description', values.description),
    exercises: [],
    line,
  };
}

function exerciseOf({ line, values }: Row): ExerciseHead {
  const superset = values.superset_id.trim();
  return {
    title: checkTitle(line, 'exercise_title', values.exercise_title),
    superset_key: superset === '' ? null : superset,
    notes: noteField(line, 'exercise_notes', values.exercise_notes),
  };
}

function setOf({ line, values }: Row, units: Units): SetValues {
  // set_index only has to be sane: position is the order the file lists the sets in.
  const index = numberField(line, 'set_index', values.set_index);
  if (index !== null) checkRange(line, 'set_index', checkWhole(line, 'set_index', index), 0, Infinity);
  const { weight: w, distance: d } = units;
  const weight = numberField(line, w.column, values[w.column]);
  const reps = numberField(line, 'reps', values.reps);
  const distance = numberField(line, d.column, values[d.column]);
  const seconds = numberField(line, 'duration_seconds', values.duration_seconds);
  const rpe = numberField(line, 'rpe', values.rpe);
  return {
    set_type: setTypeOf(line, values.set_type),
    weight_kg: weight === null ? null : weightKg(line, w.column, weight, w.unit, ''),
    reps: reps === null ? null : checkRange(line, 'reps', checkWhole(line, 'reps', reps), 0, BOUNDS.repsMax),
    distance_metres: untracked(distance, (v) => distanceMetres(line, d.column, v, d.unit)),
    duration_seconds: untracked(seconds, (s) => Math.round(checkRange(line, 'duration_seconds', s, 0, BOUNDS.durationSecondsMax))),
    rpe: rpe === null ? null : checkRange(line, 'rpe', rpe, 0, BOUNDS.rpeMax),
  };
}

// Hevy writes 0 in the distance and duration columns for sets that track neither, so 0 means
// "not recorded" there (a negative still reaches the range check and is refused).
function untracked(value: number | null, convert: (v: number) => number): number | null {
  return value === null || value === 0 ? null : convert(value);
}

const SET_TYPES = new Map<string, ParsedSet['set_type']>([
  ['normal', 'normal'],
  ['warmup', 'warmup'],
  ['failure', 'failure'],
  ['dropset', 'drop_set'],
]);

function setTypeOf(line: number, raw: string): ParsedSet['set_type'] {
  const type = SET_TYPES.get(raw.trim().toLowerCase());
  if (!type) throw new ImportRowError(line, `set_type '${raw}' must be normal, warmup, failure or dropset`);
  return type;
}

function instantField(line: number, column: string, raw: string, timeZone: string): string {
  const local = parseHevyTime(raw);
  if (!local) throw new ImportRowError(line, `${column} '${raw}' is not a date Hevy writes`);
  return zonedTimeToUtc(local, timeZone);
}

// ---- Hevy's date formats, which follow the phone's locale:
//   22 Dec 2025, 08:00 · Jan 1, 2024, 10:00 AM · 05.06.2026, 07:30 · 2024-02-01 07:00:00

const DAY_MONTH_YEAR = new RegExp(String.raw`^(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4}),?\s+${TIME}$`, 'i');
const MONTH_DAY_YEAR = new RegExp(String.raw`^([a-z]+)\.?\s+(\d{1,2}),?\s+(\d{4}),?\s+${TIME}$`, 'i');
const DOTTED = new RegExp(String.raw`^(\d{1,2})\.(\d{1,2})\.(\d{4}),?\s+${TIME}$`, 'i');
const ISO = new RegExp(String.raw`^(\d{4})-(\d{1,2})-(\d{1,2})(?:T|\s+)${TIME}$`, 'i');

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A month's full or three-letter English name; `Sept` is how en-GB abbreviates September. */
function monthNumber(name: string): number | null {
  const n = name.toLowerCase();
  const index = MONTHS.findIndex((m) => n === m || n === m.slice(0, 3));
  if (index !== -1) return index + 1;
  return n === 'sept' ? 9 : null;
}

/** The local wall-clock time of a Hevy date text, or null when it is not one Hevy writes. */
export function parseHevyTime(raw: string): LocalDateTime | null {
  const text = raw.trim();
  let m: RegExpExecArray | null;
  if ((m = DAY_MONTH_YEAR.exec(text))) return localTime(date(m[3], monthNumber(m[2]!), m[1]), m.slice(4));
  if ((m = MONTH_DAY_YEAR.exec(text))) return localTime(date(m[3], monthNumber(m[1]!), m[2]), m.slice(4));
  if ((m = DOTTED.exec(text))) return localTime(date(m[3], Number(m[2]), m[1]), m.slice(4));
  if ((m = ISO.exec(text))) return localTime(date(m[1], Number(m[2]), m[3]), m.slice(4));
  return null;
}

function date(year: string | undefined, month: number | null, day: string | undefined) {
  return { year: Number(year), month: month ?? NaN, day: Number(day) };
}
