// Strong's workout CSV export: one row per set, the workout's fields repeated on every row.
// Times are the athlete's local wall clock; weights and distances are in the units the athlete
// set in the app, which the file does not say, so the caller passes them.
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
  localTime,
  noteField,
  numberField,
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

const REQUIRED = ['Date', 'Workout Name', 'Duration', 'Exercise Name', 'Set Order', 'Weight', 'Reps', 'Distance', 'Seconds'] as const;
// Older Strong versions write no notes or RPE columns.
const OPTIONAL = ['Notes', 'Workout Notes', 'RPE'] as const;
type Row = CsvRow<(typeof REQUIRED)[number] | (typeof OPTIONAL)[number]>;

export interface StrongOptions {
  /** The athlete's IANA time zone: Strong writes local times without an offset. */
  timezone: string;
  weightUnit: WeightUnit;
  distanceUnit: DistanceUnit;
}

export function parseStrong(text: string, options: StrongOptions): ParsedWorkout[] {
  checkTimeZone(options.timezone);
  const table = readCsvTable(text, { required: REQUIRED, optional: OPTIONAL, app: 'strong' });
  const { separator, rows } = table;
  // A semicolon file comes from a comma-decimal locale: `102,5` there is 102.5.
  const units = { ...options, decimalComma: separator === ';' };
  const workouts = new Map<string, ParsedWorkout>();
  for (const row of rows) {
    const order = setOrderOf(row);
    if (order === 'rest') continue;
    const key = `${row.values['Workout Name'].trim()}\u0000${row.values.Date.trim()}`;
    let workout = workouts.get(key);
    if (!workout) {
      workout = workoutOf(row, options.timezone);
      workouts.set(key, workout);
    }
    workout.notes ??= noteField(row.line, 'Workout Notes', row.values['Workout Notes']);
    addSet(workout, row.line, exerciseOf(row), setOf(row, order, units));
  }
  return checkHasWorkouts([...workouts.values()], table);
}

function workoutOf({ line, values }: Row, timeZone: string): ParsedWorkout {
  const title = checkTitle(line, 'Workout Name', values['Workout Name']);
  const local = parseStrongTime(values.Date);
  if (!local) throw new ImportRowError(line, `Date '${values.Date}' is not a date Strong writes`);
  const start = zonedTimeToUtc(local, timeZone);
  const seconds = parseStrongDuration(values.Duration);
  if (seconds === null) {
    throw new ImportRowError(line, `Duration '${values.Duration}' is not a duration like 1h 5m, 45m or 30s`);
  }
  return {
    source_ref: `strong:${start}:${title}`,
    title,
    started_at: start,
    ended_at: new Date(Date.parse(start) + seconds * 1000).toISOString(),
    notes: null,
    exercises: [],
    line,
  };
}

function exerciseOf({ line, values }: Row): ExerciseHead {
  return {
    title: checkTitle(line, 'Exercise Name', values['Exercise Name']),
    superset_key: null,
    notes: noteField(line, 'Notes', values.Notes),
  };
}

interface Units extends StrongOptions {
  decimalComma: boolean;
}

// Strong writes 0 in every measure an exercise does not track (weight of a plank, distance
// of a bench press), so 0 means "not recorded" in all four.
function setOf({ line, values }: Row, setType: ParsedSet['set_type'], units: Units): SetValues {
  const read = (column: 'Weight' | 'Reps' | 'Distance' | 'Seconds' | 'RPE') => numberField(line, column, values[column], units.decimalComma);
  const weight = nonZero(read('Weight'));
  const reps = nonZero(read('Reps'));
  const distance = nonZero(read('Distance'));
  const seconds = nonZero(read('Seconds'));
  const rpe = read('RPE');
  return {
    set_type: setType,
    weight_kg: weight === null ? null : weightKg(line, 'Weight', weight, units.weightUnit, units.weightUnit),
    reps: reps === null ? null : checkRange(line, 'Reps', checkWhole(line, 'Reps', reps), 0, BOUNDS.repsMax),
    distance_metres: distance === null ? null : distanceMetres(line, 'Distance', distance, units.distanceUnit),
    duration_seconds: seconds === null ? null : Math.round(checkRange(line, 'Seconds', seconds, 0, BOUNDS.durationSecondsMax)),
    rpe: rpe === null ? null : checkRange(line, 'RPE', rpe, 0, BOUNDS.rpeMax),
  };
}

function nonZero(value: number | null): number | null {
  return value === 0 ? null : value;
}

/**
 * Set Order is the set's number, or a letter for a set that is not a plain working set. Strong
 * also lists each rest timer as a row with `Rest Timer` here; it is not a set.
 */
function setOrderOf({ line, values }: Row): ParsedSet['set_type'] | 'rest' {
  const raw = values['Set Order'].trim();
  const letter = SET_LETTERS.get(raw.toUpperCase());
  if (letter) return letter;
  if (raw.toLowerCase() === 'rest timer') return 'rest';
  if (/^\d+$/.test(raw)) return 'normal';
  throw new ImportRowError(line, `Set Order '${values['Set Order']}' must be a set number, W (warm-up), D (drop set), F (failure) or Rest Timer`);
}

const SET_LETTERS = new Map<string, ParsedSet['set_type']>([
  ['W', 'warmup'],
  ['D', 'drop_set'],
  ['F', 'failure'],
]);

const DATE = new RegExp(String.raw`^(\d{4})-(\d{1,2})-(\d{1,2})(?:T|\s+)${TIME}$`, 'i');

/** `2024-03-01 18:30:00`; some app versions write a 12-hour clock, `2024-03-01 6:30:00 PM`. */
export function parseStrongTime(raw: string): LocalDateTime | null {
  const m = DATE.exec(raw.trim());
  return m ? localTime({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, m.slice(4)) : null;
}

const DURATION = /^(?:(\d+)\s*h)?\s*(?:(\d+)\s*m(?:in)?)?\s*(?:(\d+)\s*s)?$/i;

/** Seconds of a Strong duration: `1h 5m`, `45m`, `1h`, `30s`, `1h 22min`; null if not one. */
export function parseStrongDuration(raw: string): number | null {
  const text = raw.trim();
  const m = DURATION.exec(text);
  if (!m || text === '') return null;
  const [, h = '0', min = '0', s = '0'] = m;
  return Number(h) * 3600 + Number(min) * 60 + Number(s);
}
