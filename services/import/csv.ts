// An RFC 4180 CSV reader for the exports of other training apps, plus the field checks both
// importers share. Pure: text in, rows out; a malformed file throws ImportRowError.
import { KG_PER_LB, LIMITS, isValidTimeZone } from '../../contracts/common.ts';
import { RECORD_BOUNDS } from '../../contracts/policy.ts';
import type { LocalDateTime } from '../domain/time.ts';
import { ImportRowError, WrongExportError, type ExportApp, type ParsedSet, type ParsedWorkout } from './types.ts';

export type Separator = ',' | ';';

export interface CsvRecord {
  /** 1-based line on which the record starts (a quoted field may span several lines). */
  line: number;
  fields: string[];
}

const LINE_BREAK = /\r\n|\r|\n/g;
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/**
 * The records of a CSV text. A leading UTF-8 BOM is dropped; blank lines are skipped. Line breaks
 * inside quoted fields become `\n`, so notes read the same whichever platform wrote the file.
 */
export function* csvRecords(text: string, separator: Separator): Generator<CsvRecord> {
  // An import reads its file once, mostly before the JIT has compiled this: fields are found with
  // indexOf (native scans), not a loop over characters. The next separator and line break of
  // each kind are found once and reused until passed, so no character is scanned twice (a file
  // without separators would otherwise be scanned to its end for every line).
  const sep = separator.charCodeAt(0);
  let sepAt = -1;
  let lf = -1;
  let cr = -1;
  const nextSep = (from: number) => (sepAt >= from ? sepAt : (sepAt = indexOrEnd(text, separator, from)));
  const nextLf = (from: number) => (lf >= from ? lf : (lf = indexOrEnd(text, '\n', from)));
  const nextCr = (from: number) => (cr >= from ? cr : (cr = indexOrEnd(text, '\r', from)));
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < text.length) {
    const start = line;
    const quoted = text.charCodeAt(i) === QUOTE;
    const fields: string[] = [];
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        let value = '';
        let chunkStart = i + 1;
        let quote: number;
        for (;;) {
          quote = text.indexOf('"', chunkStart);
          if (quote === -1) throw new ImportRowError(line, 'a quoted field is never closed');
          if (text.charCodeAt(quote + 1) !== QUOTE) break;
          value += text.slice(chunkStart, quote + 1);
          chunkStart = quote + 2;
        }
        value += text.slice(chunkStart, quote);
        const end = quote + 1;
        const lineBreaks = nextLf(i) < end || nextCr(i) < end ? countLineBreaks(text, i, end) : 0;
        const next = text.charCodeAt(end);
        if (end < text.length && next !== sep && next !== LF && next !== CR) {
          throw new ImportRowError(line + lineBreaks, `unexpected '${text[end]}' after the closing quote of a field`);
        }
        fields.push(lineBreaks === 0 ? value : value.replace(LINE_BREAK, '\n'));
        i = end;
        line += lineBreaks;
      } else {
        const end = Math.min(nextSep(i), nextLf(i), nextCr(i));
        fields.push(text.slice(i, end));
        i = end;
      }
      if (text.charCodeAt(i) === sep) {
        i++;
        continue;
      }
      if (text.charCodeAt(i) === CR) i++;
      if (text.charCodeAt(i) === LF) i++;
      line++;
      break;
    }
    if (!isBlankLine(fields, quoted)) yield { line: start, fields };
  }
}

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? text.length : at;
}

// Only a line with nothing on it but spaces is blank. `""` is a record of one empty field (RFC
// 4180): skipping it would hide a damaged row, which the column count then refuses.
function isBlankLine(fields: string[], quoted: boolean): boolean {
  return fields.length === 1 && !quoted && fields[0]!.trim() === '';
}

function countLineBreaks(text: string, from: number, end: number): number {
  let count = 0;
  for (let i = from; i < end; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) count++;
  }
  return count;
}

/** The separator of a file, from its header line: whichever of `,` and `;` occurs more often. */
export function detectSeparator(text: string): Separator {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === ',') commas++;
    else if (c === ';') semicolons++;
    else if (c === '\n' || c === '\r') {
      if (commas + semicolons > 0) break;
    }
  }
  return semicolons > commas ? ';' : ',';
}

export interface CsvRow<C extends string> {
  line: number;
  /** Raw field text by column name; an optional column the file lacks reads as ''. */
  values: Record<C, string>;
}

export interface CsvTable<C extends string> {
  separator: Separator;
  /** Line of the header record. */
  headerLine: number;
  /** The spec's columns this file has. */
  columns: ReadonlySet<C>;
  rows: CsvRow<C>[];
}

export interface TableSpec<R extends string, O extends string> {
  required: readonly R[];
  optional?: readonly O[];
  /**
   * Groups of optional columns of which the file must have exactly one: the same measure in
   * either of its units (Hevy writes `weight_kg` or `weight_lbs`).
   */
  oneOf?: readonly (readonly O[])[];
  /** The app whose export this is: a header that another app writes is refused as such. */
  app?: ExportApp;
  /** Detected from the header line when not given. */
  separator?: Separator;
}

/**
 * Reads a CSV with a header line, matching columns by name (case-insensitive, trimmed) so that
 * column order and extra columns do not matter. An empty text (not even a header) is refused.
 */
export function readCsvTable<R extends string, O extends string = never>(text: string, spec: TableSpec<R, O>): CsvTable<R | O> {
  // An image, a spreadsheet or a zip chosen by mistake: say that, not which columns it lacks.
  // Text files hold no NUL, and bytes that are not UTF-8 decode to U+FFFD.
  const head = text.slice(0, 4096);
  // A Garmin FIT file says so in bytes 8-11 of its header; the bytes before it are binary, and
  // may decode to fewer characters than bytes, so it is looked for in the first few.
  if (head.slice(0, 14).includes('.FIT')) {
    throw new ImportRowError(
      1,
      'this is a Garmin FIT file, not a CSV export: import it as Garmin FIT files (`repledger import fit`, or the Garmin section of the Import page)',
    );
  }
  if (head.includes('\u0000') || (head.match(/\uFFFD/g)?.length ?? 0) > 3) {
    throw new ImportRowError(1, 'this is not a CSV text file (it looks like an image, a spreadsheet or an archive): choose the CSV file the app exported');
  }
  const separator = spec.separator ?? detectSeparator(text);
  const records = csvRecords(text, separator);
  const first = records.next();
  if (first.done) throw new ImportRowError(1, 'the file is empty: an export has a header line and a row per set');
  const header = first.value;
  const columns = locateColumns<R | O>(header, spec);
  const names = [...columns.keys()];
  const indexes = [...columns.values()];
  const rows: CsvRow<R | O>[] = [];
  for (const record of records) {
    checkFieldCount(record, header.fields.length);
    const values = {} as Record<R | O, string>;
    for (let c = 0; c < names.length; c++) values[names[c]!] = indexes[c] === -1 ? '' : (record.fields[indexes[c]!] ?? '');
    rows.push({ line: record.line, values });
  }
  const present = new Set([...columns].filter(([, index]) => index !== -1).map(([name]) => name));
  return { separator, headerLine: header.line, columns: present, rows };
}

function locateColumns<C extends string>(header: CsvRecord, spec: TableSpec<C, C>): Map<C, number> {
  const normalized = header.fields.map((h) => h.trim().toLowerCase());
  const columns = new Map<C, number>();
  for (const name of [...spec.required, ...(spec.optional ?? [])]) columns.set(name, normalized.indexOf(name.toLowerCase()));
  const has = (name: C) => columns.get(name) !== -1;
  const missing = spec.required.filter((name) => !has(name)).map((m) => `'${m}'`);
  for (const group of spec.oneOf ?? []) {
    const found = group.filter(has);
    if (found.length === 0) missing.push(group.map((m) => `'${m}'`).join(' or '));
    if (found.length > 1) {
      throw new ImportRowError(header.line, `the header has ${found.map((f) => `'${f}'`).join(' and ')}; an export has one of them`);
    }
  }
  if (missing.length === 0) return columns;
  // Another app's export misses most columns: naming the app helps more than listing them.
  const detected = exportAppOf(normalized);
  if (spec.app && detected && detected !== spec.app) throw new WrongExportError(header.line, spec.app, detected);
  const noun = missing.length === 1 ? 'column' : 'columns';
  throw new ImportRowError(header.line, `missing ${noun} ${missing.join(', ')} in the header`);
}

// Columns that only one app's export has, lower case: enough to tell the files apart.
const SIGNATURES: Record<ExportApp, readonly string[]> = {
  hevy: ['start_time', 'exercise_title', 'set_index'],
  strong: ['workout name', 'exercise name', 'set order'],
};

/** The app that wrote a header (its names trimmed and lower case), or null when neither did. */
export function exportAppOf(header: readonly string[]): ExportApp | null {
  const apps = Object.keys(SIGNATURES) as ExportApp[];
  return apps.find((app) => SIGNATURES[app].every((column) => header.includes(column))) ?? null;
}

/**
 * Refuses an export without a single set: "imported 0 of 0" would report success for what is
 * usually the wrong file or a failed download.
 */
export function checkHasWorkouts(workouts: ParsedWorkout[], table: CsvTable<string>): ParsedWorkout[] {
  if (workouts.length === 0) {
    throw new ImportRowError(table.headerLine + 1, 'the file has a header but no sets: there is nothing to import');
  }
  return workouts;
}

// A short row means a damaged file (a cut line or a stray line break), not empty values.
function checkFieldCount(record: CsvRecord, expected: number): void {
  let extra = false;
  for (let i = expected; i < record.fields.length && !extra; i++) extra = record.fields[i]!.trim() !== '';
  if (record.fields.length < expected || extra) {
    const noun = record.fields.length === 1 ? 'field' : 'fields';
    throw new ImportRowError(record.line, `row has ${record.fields.length} ${noun}; the header has ${expected}`);
  }
}

// ---- Field values shared by the importers. Messages quote the column as the file names it.

/**
 * A plain decimal as exports write it: optional sign, digits, optional fraction. With
 * `decimalComma`, `102,5` is read too (files written in a comma-decimal locale). Empty is null.
 */
export function numberField(line: number, column: string, raw: string, decimalComma = false): number | null {
  const text = raw.trim();
  if (text === '') return null;
  const normalized = decimalComma ? text.replace(',', '.') : text;
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(normalized)) {
    throw new ImportRowError(line, `${column} '${raw}' is not a number`);
  }
  return Number(normalized);
}

/** Checks `min <= value <= max`; `unit` is appended to the bound in the message. */
export function checkRange(line: number, column: string, value: number, min: number, max: number, unit = ''): number {
  const suffix = unit ? ` ${unit}` : '';
  if (value < min) throw new ImportRowError(line, `${column} ${value} must be >= ${min}${suffix}`);
  if (value > max) throw new ImportRowError(line, `${column} ${value} must be <= ${max}${suffix}`);
  return value;
}

export function checkWhole(line: number, column: string, value: number): number {
  if (!Number.isInteger(value)) throw new ImportRowError(line, `${column} ${value} is not a whole number`);
  return value;
}

/** A name the record stores as text of 1-200 characters after trimming. */
export function checkTitle(line: number, column: string, raw: string): string {
  const title = raw.trim();
  if (title === '') throw new ImportRowError(line, `${column} is empty`);
  if (title.length > TITLE_MAX) {
    throw new ImportRowError(line, `${column} is ${title.length} characters long; at most ${TITLE_MAX} are allowed`);
  }
  return title;
}

/** Free text; empty becomes null. The record keeps notes up to 2000 characters. */
export function noteField(line: number, column: string, raw: string): string | null {
  const note = raw.trim();
  if (note === '') return null;
  if (note.length > NOTE_MAX) {
    throw new ImportRowError(line, `${column} is ${note.length} characters long; at most ${NOTE_MAX} are allowed`);
  }
  return note;
}

/** A clock time as exports write it: `7:30`, `07:30:15`, `10:00 AM`, `6:30:00\u202fpm`. */
export const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([ap])\.?\s*m\.?)?`;

/**
 * A wall-clock time from a date and the groups `TIME` matched ([hour, minute, second?, a|p?]),
 * or null when it names no real moment (31 February, 13 PM, 24:00).
 */
export function localTime(date: { year: number; month: number; day: number }, time: (string | undefined)[]): LocalDateTime | null {
  const [hour, minute, second, meridiem] = time;
  const local = {
    ...date,
    hour: hour24(Number(hour), meridiem),
    minute: Number(minute),
    second: second === undefined ? 0 : Number(second),
  };
  return isRealTime(local) ? local : null;
}

function hour24(hour: number, meridiem: string | undefined): number {
  if (meridiem === undefined) return hour;
  if (hour < 1 || hour > 12) return NaN;
  const pm = meridiem.toLowerCase() === 'p';
  return (hour % 12) + (pm ? 12 : 0);
}

function isRealTime(t: LocalDateTime): boolean {
  const d = new Date(Date.UTC(t.year, t.month - 1, t.day));
  return (
    d.getUTCFullYear() === t.year &&
    d.getUTCMonth() === t.month - 1 &&
    d.getUTCDate() === t.day &&
    t.hour >= 0 &&
    t.hour <= 23 &&
    t.minute >= 0 &&
    t.minute <= 59 &&
    t.second >= 0 &&
    t.second <= 59
  );
}

/** Rounds away binary noise from unit conversion (e.g. 5.23 km × 1000) without losing real digits. */
export function roundTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

export type WeightUnit = 'kg' | 'lbs';
export type DistanceUnit = 'km' | 'mi';

const METRES_PER_MILE = 1609.344;

/**
 * Kilograms of a weight written in `unit`. The bound is checked in the file's unit, so the
 * message quotes the number the file has; `suffix` follows the bound (Hevy's column names say
 * the unit already, Strong's do not).
 */
export function weightKg(line: number, column: string, weight: number, unit: WeightUnit, suffix: string): number {
  if (unit === 'kg') return checkRange(line, column, weight, 0, BOUNDS.weightKgMax, suffix);
  checkRange(line, column, weight, 0, roundTo(BOUNDS.weightKgMax / KG_PER_LB, 2), suffix);
  // Ten decimals keep every digit of lbs × 0.45359237 for weights logged to 0.01 lb.
  return roundTo(weight * KG_PER_LB, 10);
}

/** Metres of a distance written in `unit`. */
export function distanceMetres(line: number, column: string, distance: number, unit: DistanceUnit): number {
  const metresPerUnit = unit === 'km' ? 1000 : METRES_PER_MILE;
  checkRange(line, column, distance, 0, roundTo(RECORD_BOUNDS.distanceMetres / metresPerUnit, 2));
  return roundTo(distance * metresPerUnit, 6);
}

const TITLE_MAX = LIMITS.text.max;
// Notes and exercises per workout: the limits of the stored workout (contracts/record.ts).
const NOTE_MAX = 2000;

export const BOUNDS = {
  repsMax: RECORD_BOUNDS.reps,
  weightKgMax: RECORD_BOUNDS.weightKg,
  durationSecondsMax: RECORD_BOUNDS.durationSeconds,
  rpeMax: 10,
  setsPerExercise: LIMITS.setsPerWorkoutExercise,
  exercisesPerWorkout: 100,
} as const;

// ---- Assembling workouts, shared by the importers.

export interface ExerciseHead {
  title: string;
  superset_key: string | null;
  notes: string | null;
}

export type SetValues = Omit<ParsedSet, 'position' | 'line'>;

/**
 * Adds a row's set to a workout under construction: to the workout's last exercise when the row
 * continues it (same title and superset), otherwise to a new exercise entry, so an exercise the
 * athlete came back to later in the session stays a separate entry, as the file lists it.
 */
export function addSet(workout: ParsedWorkout, line: number, head: ExerciseHead, values: SetValues): void {
  let exercise = workout.exercises.at(-1);
  if (!exercise || exercise.title !== head.title || exercise.superset_key !== head.superset_key) {
    if (workout.exercises.length >= BOUNDS.exercisesPerWorkout) {
      throw new ImportRowError(line, `workout '${workout.title}' has more than ${BOUNDS.exercisesPerWorkout} exercises`);
    }
    exercise = { title: head.title, superset_key: head.superset_key, notes: null, sets: [] };
    workout.exercises.push(exercise);
  }
  if (exercise.sets.length >= BOUNDS.setsPerExercise) {
    throw new ImportRowError(line, `exercise '${head.title}' has more than ${BOUNDS.setsPerExercise} sets`);
  }
  exercise.notes ??= head.notes;
  exercise.sets.push({ position: exercise.sets.length, ...values, line });
}

/** Refuses an unknown time zone before any row is read, instead of failing on the first date. */
export function checkTimeZone(timeZone: string): void {
  if (!isValidTimeZone(timeZone)) throw new RangeError(`timezone '${timeZone}' is not an IANA time zone`);
}
