// The Health app's export (Health > your picture > Export All Health Data): `export.zip`, holding
// `apple_health_export/export.xml`, often hundreds of megabytes, most of it heart-rate and step
// samples that RepLedger does not keep. It is read as a stream, entry by entry out of the zip and
// element by element out of the XML, and only what is imported is held: workouts, body mass and
// body-fat readings, and dietary energy and macronutrients summed by the athlete's local day.
//
// Dates in the file are local times with their offset ("2026-05-01 07:00:00 +0100"). A workout
// becomes one exercise named after its activity with one set of its duration and distance; since
// iOS 16 the distance is in a `WorkoutStatistics` child, before that in the workout's attributes.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { RECORD_BOUNDS } from '../../contracts/policy.ts';
import { localDateOf } from '../domain/time.ts';
import type { AthleteState } from '../domain/athlete.ts';
import type { ImportCommand } from '../domain/import.ts';
import type { ParsedMeal, ParsedMeasurement } from '../domain/parsed-workouts.ts';
import { checkImportTimes, refusedFile, saveImport, type ImportResult, type ImportTarget } from './run.ts';
import { ImportRowError, type ParsedWorkout } from './types.ts';

/** A day's dietary samples as they add up: one meal in the record, named as such. */
interface DayTotal extends Omit<ParsedMeal, 'name'> {
  date: string;
}

/** The name of the meal a day's total becomes. */
export const DAY_TOTAL_NAME = 'Day total from Apple Health';

export interface AppleHealthData {
  workouts: ParsedWorkout[];
  measurements: ParsedMeasurement[];
  /**
   * What the athlete ate, a meal per local day (the day's total; the samples are often one per
   * nutrient per food). Complete days only: the export's own day is left out, its total still growing.
   */
  meals: ParsedMeal[];
  /** When the Health app wrote the export, from its `ExportDate`. */
  exported_at: string | null;
}

export interface AppleHealthOptions {
  /** The athlete's IANA time zone: days of nutrition are the athlete's days. */
  timezone: string;
}

/** What a zip or an XML file holds before it is read: the export's XML as text chunks. */
export type XmlChunks = AsyncIterable<string>;

const EXPORT_XML = /(^|\/)export\.xml$/;
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const HEALTH_ROOT = 'HealthData';

const DIETARY = {
  HKQuantityTypeIdentifierDietaryEnergyConsumed: 'calories_kcal',
  HKQuantityTypeIdentifierDietaryProtein: 'protein_g',
  HKQuantityTypeIdentifierDietaryCarbohydrates: 'carbohydrate_g',
  HKQuantityTypeIdentifierDietaryFatTotal: 'fat_g',
} as const;
type Nutrient = (typeof DIETARY)[keyof typeof DIETARY];

const KCAL_PER: Record<string, number> = { kcal: 1, Cal: 1, kJ: 1 / 4.184, cal: 1 / 1000 };
const GRAMS_PER: Record<string, number> = { g: 1, mg: 1 / 1000, kg: 1000, oz: 28.349523125 };
const KG_PER: Record<string, number> = { kg: 1, g: 1 / 1000, lb: 0.45359237, st: 6.35029318 };
const METRES_PER: Record<string, number> = { m: 1, km: 1000, mi: 1609.344, yd: 0.9144, ft: 0.3048, cm: 0.01 };
const SECONDS_PER: Record<string, number> = { s: 1, min: 60, hr: 3600, h: 3600, d: 86_400 };
const DISTANCE_STATISTICS = /^HKQuantityTypeIdentifierDistance/;

/** "2026-05-01 07:00:00 +0100" as a UTC ISO instant; null for anything else. */
export function healthInstant(text: string | undefined): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/.exec(text ?? '');
  if (!m) return null;
  const [, y, mo, d, h, mi, s, sign, oh, om] = m;
  const offsetMs = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offsetMs;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** "HKWorkoutActivityTypeTraditionalStrengthTraining" as "Traditional strength training". */
export function activityName(type: string | undefined): string {
  const words = (type ?? '')
    .replace(/^HKWorkoutActivityType/, '')
    .split(/(?<=[a-z])(?=[A-Z])/)
    .filter(Boolean);
  if (words.length === 0) return 'Workout';
  const text = words.map((w, i) => (i === 0 ? w : w.toLowerCase())).join(' ');
  return text.length > 100 ? text.slice(0, 100) : text;
}

/** Reads an export's XML, streamed, keeping only what is imported. */
export async function parseAppleHealth(xml: XmlChunks, options: AppleHealthOptions): Promise<AppleHealthData> {
  const parser = new SaxesParser();
  const workouts: ParsedWorkout[] = [];
  const measurements: ParsedMeasurement[] = [];
  const days = new Map<string, DayTotal>();
  let exportedAt: string | null = null;
  let root: string | null = null;
  let open: { workout: ParsedWorkout; line: number; distance: number | null; duration: number | null } | null = null;
  let failure: Error | null = null;

  const fail = (line: number, message: string): never => {
    throw new ImportRowError(line, message);
  };
  const number = (line: number, tag: SaxesTagPlain, name: string, max: number): number => {
    const raw = tag.attributes[name];
    const value = Number(raw);
    if (raw === undefined || raw.trim() === '' || !Number.isFinite(value)) fail(line, `${tag.name} has ${name} "${raw ?? ''}", not a number`);
    if (value < 0 || value > max) fail(line, `${tag.name} has ${name} ${value}, outside 0 to ${max}`);
    return value;
  };
  const factor = (line: number, tag: SaxesTagPlain, name: string, table: Record<string, number>): number => {
    const unit = tag.attributes[name] ?? '';
    const f = table[unit];
    if (f === undefined) fail(line, `${tag.name} has ${name} "${unit}", not one of ${Object.keys(table).join(', ')}`);
    return f!;
  };
  const instant = (line: number, tag: SaxesTagPlain, name: string): string =>
    healthInstant(tag.attributes[name]) ?? fail(line, `${tag.name} has ${name} "${tag.attributes[name] ?? ''}", not a date like 2026-05-01 07:00:00 +0100`);

  const onRecord = (line: number, tag: SaxesTagPlain) => {
    const type = tag.attributes.type ?? '';
    if (type === 'HKQuantityTypeIdentifierBodyMass') {
      const kg = number(line, tag, 'value', 1e6) * factor(line, tag, 'unit', KG_PER);
      const at = instant(line, tag, 'startDate');
      if (kg <= 0 || kg > RECORD_BOUNDS.measurementValue) fail(line, `a body mass of ${kg} kg is not a body mass`);
      measurements.push({ source_ref: `bodyweight ${at}`, measured_at: at, metric: 'bodyweight', value: kg, line });
    } else if (type === 'HKQuantityTypeIdentifierBodyFatPercentage') {
      // The Health app keeps body fat as a fraction (0.18), with the unit "%".
      const fraction = number(line, tag, 'value', 1);
      const at = instant(line, tag, 'startDate');
      if (fraction <= 0) fail(line, `a body fat of ${fraction} is not a body fat`);
      measurements.push({ source_ref: `body_fat ${at}`, measured_at: at, metric: 'body_fat', value: Math.round(fraction * 1e6) / 1e4, line });
    } else if (type in DIETARY) {
      const nutrient: Nutrient = DIETARY[type as keyof typeof DIETARY];
      const amount = number(line, tag, 'value', 1e7) * factor(line, tag, 'unit', nutrient === 'calories_kcal' ? KCAL_PER : GRAMS_PER);
      const at = instant(line, tag, 'startDate');
      const date = localDateOf(at, options.timezone);
      const day = days.get(date) ?? {
        source_ref: `day ${date}`,
        date,
        eaten_at: at,
        calories_kcal: null,
        protein_g: null,
        carbohydrate_g: null,
        fat_g: null,
        line,
      };
      day[nutrient] = (day[nutrient] ?? 0) + amount;
      if (at > day.eaten_at) day.eaten_at = at;
      days.set(date, day);
    }
  };

  const onWorkout = (line: number, tag: SaxesTagPlain) => {
    const started = instant(line, tag, 'startDate');
    const ended = instant(line, tag, 'endDate');
    if (ended < started) fail(line, `the workout ends (${ended}) before it starts (${started})`);
    const duration = tag.attributes.duration ? number(line, tag, 'duration', 1e7) * factor(line, tag, 'durationUnit', SECONDS_PER) : null;
    const distance = tag.attributes.totalDistance ? number(line, tag, 'totalDistance', 1e9) * factor(line, tag, 'totalDistanceUnit', METRES_PER) : null;
    const title = activityName(tag.attributes.workoutActivityType);
    open = {
      line,
      duration,
      distance,
      workout: { source_ref: `${started} ${title}`, title, started_at: started, ended_at: ended, notes: null, exercises: [], line },
    };
  };

  const closeWorkout = () => {
    const { workout, line } = open!;
    const { started_at, ended_at } = workout;
    const duration = Math.round(open!.duration ?? (Date.parse(ended_at) - Date.parse(started_at!)) / 1000);
    const distance = open!.distance === null ? null : Math.round(open!.distance * 100) / 100;
    if (duration > RECORD_BOUNDS.durationSeconds) fail(line, `the workout lasts ${duration} s, more than a week`);
    if (distance !== null && distance > RECORD_BOUNDS.distanceMetres)
      fail(line, `the workout covers ${distance} m, more than ${RECORD_BOUNDS.distanceMetres / 1000} km`);
    workout.exercises.push({
      title: workout.title,
      superset_key: null,
      notes: null,
      sets: [{ position: 0, set_type: 'normal', weight_kg: null, reps: null, distance_metres: distance, duration_seconds: duration, rpe: null, line }],
    });
    workouts.push(workout);
    open = null;
  };

  parser.on('opentag', (tag) => {
    if (failure) return;
    const line = parser.line;
    try {
      if (root === null) {
        root = tag.name;
        if (root !== HEALTH_ROOT) fail(line, `this is not the Health app's export: its XML starts with <${root}>, not <${HEALTH_ROOT}>`);
        return;
      }
      if (tag.name === 'ExportDate') exportedAt = healthInstant(tag.attributes.value);
      else if (tag.name === 'Record') onRecord(line, tag);
      else if (tag.name === 'Workout') onWorkout(line, tag);
      else if (tag.name === 'WorkoutStatistics' && open && open.distance === null && DISTANCE_STATISTICS.test(tag.attributes.type ?? '') && tag.attributes.sum)
        open.distance = number(line, tag, 'sum', 1e9) * factor(line, tag, 'unit', METRES_PER);
    } catch (error) {
      failure = error as Error;
    }
  });
  parser.on('closetag', (tag) => {
    if (failure || tag.name !== 'Workout' || !open) return;
    try {
      closeWorkout();
    } catch (error) {
      failure = error as Error;
    }
  });
  parser.on('error', (error) => {
    failure ??=
      root === null
        ? new ImportRowError(parser.line, 'this is not the Health app’s export (export.zip, or the export.xml in it): the file is not XML')
        : new ImportRowError(parser.line, `the file is not well-formed XML (${error.message.replace(/^(?:.*?:)?\d+:\d+: /, '')})`);
  });

  for await (const chunk of xml) {
    parser.write(chunk);
    if (failure) throw failure;
  }
  parser.close();
  if (failure) throw failure;
  if (root === null) throw new ImportRowError(1, 'the file holds no XML: it is not the Health app’s export');

  // The export's own day is not over: its total would be read again, larger, next time.
  const exportDay = exportedAt ? localDateOf(exportedAt, options.timezone) : null;
  const meals = [...days.values()]
    .filter((d) => d.date !== exportDay)
    .sort((a, b) => a.date.localeCompare(b.date))
    .map(({ date, ...d }): ParsedMeal => ({ ...d, name: DAY_TOTAL_NAME, ...dayNutrients(d, date) }));
  return { workouts, measurements, meals, exported_at: exportedAt };
}

/** A day's sums to a tenth, each within what a meal holds: a larger one is refused, naming the day. */
function dayNutrients(d: Pick<ParsedMeal, Nutrient | 'line'>, date: string): Pick<ParsedMeal, Nutrient> {
  const bounds: Record<Nutrient, [number, string]> = {
    calories_kcal: [RECORD_BOUNDS.caloriesKcal, 'kcal of dietary energy'],
    protein_g: [RECORD_BOUNDS.macroGrams, 'g of protein'],
    carbohydrate_g: [RECORD_BOUNDS.macroGrams, 'g of carbohydrate'],
    fat_g: [RECORD_BOUNDS.macroGrams, 'g of fat'],
  };
  const out = {} as Pick<ParsedMeal, Nutrient>;
  for (const [nutrient, [max, what]] of Object.entries(bounds) as Array<[Nutrient, [number, string]]>) {
    const v = d[nutrient] === null ? null : Math.round(d[nutrient] * 10) / 10;
    if (v !== null && v > max) throw new ImportRowError(d.line, `the samples of ${date} add up to ${v} ${what}, more than the ${max} a meal holds`);
    out[nutrient] = v;
  }
  return out;
}

/**
 * A stream's bytes as UTF-8 text chunks (a character split across chunks is kept whole). A stream
 * that fails (a damaged zip entry: bad CRC, cut short) or bytes that are not UTF-8 refuse the file.
 */
async function* utf8(stream: AsyncIterable<Uint8Array>, what: string): XmlChunks {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of stream) yield decoder.decode(chunk, { stream: true });
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (error) {
    if (error instanceof ImportRowError) throw error;
    const message = error instanceof TypeError ? 'it is not UTF-8 text' : (error as Error).message;
    throw new ImportRowError(1, `${what} cannot be read: ${message}`);
  }
}

/** The entry named `export.xml` (at any depth: `apple_health_export/export.xml`), or null. */
function findExportXml(zip: ZipFile): Promise<Entry | null> {
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: Entry) => (EXPORT_XML.test(entry.fileName) ? resolve(entry) : zip.readEntry()));
    zip.on('end', () => resolve(null));
    zip.on('error', reject);
    zip.readEntry();
  });
}

/**
 * Reads the export at `path` (the Health app's `export.zip`, or the `export.xml` taken out of
 * it) with `handle`, streamed; the zip is closed after, whatever `handle` did.
 */
export async function readAppleHealthFile<T>(path: string, handle: (xml: XmlChunks) => Promise<T>): Promise<T> {
  const head = Buffer.alloc(4);
  const fd = await open(path, 'r');
  try {
    await fd.read(head, 0, 4, 0);
  } finally {
    await fd.close();
  }
  // "PK\x03\x04": a zip's first local file header.
  if (!head.equals(ZIP_MAGIC)) return handle(utf8(createReadStream(path), 'the file'));
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw new ImportRowError(1, `the zip cannot be read (${(error as Error).message})`);
  }
  try {
    const entry = await findExportXml(zip);
    if (!entry) throw new ImportRowError(1, 'the zip holds no export.xml: it is not the Health app’s export');
    return await handle(utf8(await zip.openReadStreamPromise(entry), `${entry.fileName} in the zip`));
  } finally {
    zip.close();
  }
}

/** Where the export is and how the athlete is told of the import's progress. */
export interface AppleHealthInput {
  path: string;
  fileName: string;
  /** Told what the file holds once it is read and checked, before anything is saved. */
  checked?: (data: AppleHealthData) => void;
  /** Told how many of the new workouts are saved so far (embedded mode only), and the total. */
  progress?: (done: number, total: number) => void;
}

/**
 * Imports the export at `input.path` into the athlete's record: read as a stream, checked, then
 * saved in one append (all of it or nothing). `invalid_input` names the line and what was wrong.
 */
export async function importAppleHealth(app: ImportTarget, athlete: AthleteState, input: AppleHealthInput): Promise<ImportResult> {
  let data: AppleHealthData;
  let digest: string;
  try {
    [data, digest] = await Promise.all([
      readAppleHealthFile(input.path, (xml) => parseAppleHealth(xml, { timezone: athlete.profile.timezone })),
      fileSha256(input.path),
    ]);
    checkImportTimes(data, app.clock.now().getTime(), athlete.profile.timezone);
  } catch (error) {
    if (error instanceof ImportRowError) throw refusedFile(input.fileName, error);
    throw error;
  }
  input.checked?.(data);
  const command: ImportCommand = {
    app: 'apple_health',
    file_name: input.fileName,
    file_sha256: digest,
    workouts: data.workouts,
    measurements: data.measurements,
    meals: data.meals,
  };
  return saveImport(app, athlete, command, input.progress);
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
