// Garmin FIT files (Flexible and Interoperable Data Transfer), read with Garmin's own FIT SDK: the
// binary files a Garmin device records and Garmin Connect hands back ("Export Original"). This is
// a pure function from one file's bytes to what the import keeps; finding the files in an upload
// (one .fit, or a zip of many) is ./garmin.ts's.
//
// - An activity file becomes one workout. Its active `set` messages (a strength-training activity)
//   become the workout's sets, grouped by exercise; without any, each session becomes an exercise
//   named after its sport with one set of its timer time and distance.
// - A weight-scale file's readings become body measurements: weight and body fat.
// - The file id (file_id message: serial number and time created) keys both, so the same file
//   imported again, alone or in a zip, is skipped.
// FIT times are UTC; weights kg; distances metres; durations seconds: the record's own units.
import { Decoder, Profile, Stream } from '@garmin/fitsdk';
import type { FileIdMesg, FitMessages, SessionMesg, SetMesg, WeightScaleMesg } from '@garmin/fitsdk';
import { LIMITS, RECORD_BOUNDS } from '../../contracts/policy.ts';
import type { ParsedExercise, ParsedMeasurement, ParsedSet, ParsedWorkout } from '../domain/parsed-workouts.ts';
import { ImportFileError } from './types.ts';

export type FitFile =
  | { type: 'activity'; file_id: string; workout: ParsedWorkout }
  | { type: 'weight'; file_id: string; measurements: ParsedMeasurement[] }
  /** A FIT file of another type (settings, monitoring, a course…): nothing in it is imported. */
  | { type: 'other'; file_id: string | null; fit_type: string };

/** Exercises in one workout, as the record stores it (contracts/record.ts). */
const MAX_EXERCISES = 100;
/** The exercise category's value for "not given" (the SDK's `unknown`, 0xFFFE). */
const UNKNOWN_EXERCISE = 65534;
/** The largest value of a uint16 exercise name, "invalid" in FIT. */
const INVALID_UINT16 = 0xffff;

/**
 * Reads one FIT file. `entry` is its name in the uploaded zip (null: the upload itself), which a
 * refusal carries. Refuses (ImportFileError) a file that is not FIT, is cut short or damaged (its
 * CRC does not match), or holds an activity or reading RepLedger cannot keep.
 */
export function parseFit(bytes: Uint8Array, entry: string | null): FitFile {
  const refuse = (message: string): never => {
    throw new ImportFileError(entry, message);
  };
  checkIntact(bytes, refuse);
  const { messages, errors } = new Decoder(Stream.fromBuffer(bytes)).read({ mergeHeartRates: false });
  if (errors.length > 0) refuse(`the FIT file cannot be read (${errors[0]!.message}); it may be damaged`);
  const fileId = messages.fileIdMesgs?.[0];
  if (!fileId) return refuse('the FIT file has no file id (file_id message), which every FIT file starts with');
  const type = String(fileId.type ?? 'unknown');
  if (type !== 'activity' && type !== 'weight') return { type: 'other', file_id: keyOf(fileId), fit_type: type };
  const key = keyOf(fileId) ?? refuse(`the ${type} file's file id has no time created, which tells one recording from another`);
  if (type === 'weight')
    return { type: 'weight', file_id: key, measurements: measurementsOf(messages.weightScaleMesgs ?? [], deviceOf(fileId), entry, refuse) };
  return { type: 'activity', file_id: key, workout: workoutOf(messages, key, entry, refuse) };
}

/**
 * The checks the SDK's `checkIntegrity` makes, told apart, so that the refusal says which failed:
 * the header's signature, the file's length against the header's data size, and the CRC.
 */
function checkIntact(bytes: Uint8Array, refuse: (message: string) => never): void {
  if (!Decoder.isFIT(Stream.fromBuffer(bytes))) {
    const head = new TextDecoder().decode(bytes.subarray(0, 200));
    const csv = /^[^\n]*,[^\n]*\n/.test(head);
    refuse(
      `this is not a FIT file${csv ? ' (it looks like a CSV export: import that as the app that wrote it)' : ''}; choose a .fit file from a Garmin device or Garmin Connect, or a zip of them`,
    );
  }
  const headerSize = bytes[0]!;
  const dataSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  const expected = headerSize + dataSize + 2;
  if (bytes.byteLength < expected) refuse(`the FIT file is cut short: its header says ${expected} bytes, the file has ${bytes.byteLength}; copy it again`);
  if (!new Decoder(Stream.fromBuffer(bytes)).checkIntegrity())
    refuse('the FIT file fails its CRC check: it was damaged on the way (copy it again from the device or Garmin Connect)');
}

/** The file id: the device's serial number and the file's creation time. */
function keyOf(fileId: FileIdMesg): string | null {
  const created = fileId.timeCreated;
  if (!(created instanceof Date)) return null;
  return `${deviceOf(fileId)}:${created.toISOString()}`;
}

/** The device that wrote the file: its serial number, or its maker and product when it gives none. */
function deviceOf(fileId: FileIdMesg): string {
  return fileId.serialNumber !== undefined ? String(fileId.serialNumber) : `${String(fileId.manufacturer ?? 'unknown')}-${String(fileId.product ?? 0)}`;
}

function instantOf(value: unknown): string | null {
  return value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : null;
}

function workoutOf(messages: FitMessages, key: string, entry: string | null, refuse: (message: string) => never): ParsedWorkout {
  const sessions = (messages.sessionMesgs ?? []).filter((s) => instantOf(s.startTime) !== null);
  if (sessions.length === 0) return refuse('the activity has no session with a start time: it was not saved on the device as a finished activity');
  const starts = sessions.map((s) => Date.parse(instantOf(s.startTime)!));
  const ends = sessions.map((s, i) => endOf(s, starts[i]!));
  const started = Math.min(...starts);
  const ended = Math.max(...ends);
  const activeSets = (messages.setMesgs ?? []).map((set, i) => ({ set, number: i + 1 })).filter(({ set }) => set.setType === 'active');
  const exercises = activeSets.length > 0 ? strengthExercises(activeSets, exerciseTitles(messages), refuse) : sessionExercises(sessions, refuse);
  // The stored workout's limits, said here of the file rather than by the record's check of the whole import.
  const sets = exercises.reduce((n, e) => n + e.sets.length, 0);
  if (sets > LIMITS.achievedSetCountMax) refuse(`the activity has ${sets} sets; a workout holds at most ${LIMITS.achievedSetCountMax}`);
  if (exercises.length > MAX_EXERCISES) refuse(`the activity has ${exercises.length} exercises; a workout holds at most ${MAX_EXERCISES}`);
  return {
    source_ref: key,
    title: titleOf(sessions),
    started_at: new Date(started).toISOString(),
    ended_at: new Date(ended).toISOString(),
    notes: null,
    exercises,
    line: 1,
    entry,
  };
}

/** A session's end: its start plus its elapsed time (pauses included), or its last timestamp. */
function endOf(session: SessionMesg, startMs: number): number {
  if (typeof session.totalElapsedTime === 'number') return startMs + Math.round(session.totalElapsedTime * 1000);
  const at = instantOf(session.timestamp);
  return at ? Math.max(startMs, Date.parse(at)) : startMs;
}

/** The workout's title: the sub-sport where it says more than the sport ("Strength training", "Trail running"), else the sport. */
function titleOf(sessions: readonly SessionMesg[]): string {
  const names = [...new Set(sessions.map(sportName))];
  return names.length === 1 ? names[0]! : 'Multisport';
}

function sportName(session: SessionMesg): string {
  const sub = typeof session.subSport === 'string' ? session.subSport : 'generic';
  if (sub !== 'generic' && sub !== 'all') return readable(sub);
  return typeof session.sport === 'string' && session.sport !== 'generic' ? readable(session.sport) : 'Activity';
}

/** Each session as an exercise named after its sport, with one set of its timer time and distance. */
function sessionExercises(sessions: readonly SessionMesg[], refuse: (message: string) => never): ParsedExercise[] {
  const byName = new Map<string, ParsedExercise>();
  sessions.forEach((s, i) => {
    const title = sportName(s);
    let exercise = byName.get(title);
    if (!exercise) byName.set(title, (exercise = { title, superset_key: null, notes: null, sets: [] }));
    // Timer time leaves out the pauses: the time spent moving, as Garmin Connect shows it.
    const seconds = s.totalTimerTime ?? s.totalElapsedTime;
    const within = bounded(`session ${i + 1}`, refuse);
    exercise.sets.push({
      position: exercise.sets.length,
      set_type: 'normal',
      weight_kg: null,
      reps: null,
      distance_metres: within('distance', positive(s.totalDistance), RECORD_BOUNDS.distanceMetres, 'm'),
      duration_seconds: within('duration', positive(seconds, Math.round), RECORD_BOUNDS.durationSeconds, 's'),
      rpe: null,
      line: i + 1,
    });
  });
  return [...byName.values()];
}

/**
 * A strength activity's active sets (rest periods are `rest` sets, left out), grouped by exercise
 * in the order each was first done, as Garmin Connect lists them: a circuit's alternating sets
 * land under their own exercise. FIT sets have no warm-up or drop-set marks: every set is normal.
 */
function strengthExercises(
  sets: ReadonlyArray<{ set: SetMesg; number: number }>,
  titles: ReadonlyMap<string, string>,
  refuse: (message: string) => never,
): ParsedExercise[] {
  const byName = new Map<string, ParsedExercise>();
  for (const { set, number } of sets) {
    const title = exerciseName(set, titles);
    let exercise = byName.get(title.toLowerCase());
    if (!exercise) byName.set(title.toLowerCase(), (exercise = { title, superset_key: null, notes: null, sets: [] }));
    const within = bounded(`set message ${number}`, refuse);
    const parsed: ParsedSet = {
      position: exercise.sets.length,
      set_type: 'normal',
      // Garmin writes 0 kg for a set without weight (a bodyweight exercise): not a weight lifted.
      weight_kg: within('weight', positive(set.weight), RECORD_BOUNDS.weightKg, 'kg'),
      reps: within('repetitions', typeof set.repetitions === 'number' ? set.repetitions : null, RECORD_BOUNDS.reps, ''),
      distance_metres: null,
      duration_seconds: within('duration', positive(set.duration, Math.round), RECORD_BOUNDS.durationSeconds, 's'),
      rpe: null,
      line: number,
    };
    exercise.sets.push(parsed);
  }
  return [...byName.values()];
}

/**
 * The names a workout's steps gave exercises (exercise_title messages, a custom workout's "Bench
 * Press - Heavy"), by category and name: what the athlete saw on the watch.
 */
function exerciseTitles(messages: FitMessages): Map<string, string> {
  const titles = new Map<string, string>();
  for (const t of messages.exerciseTitleMesgs ?? []) {
    const name = typeof t.wktStepName === 'string' ? t.wktStepName.trim() : '';
    if (name && t.exerciseCategory !== undefined && t.exerciseName !== undefined)
      titles.set(`${String(t.exerciseCategory)}/${String(t.exerciseName)}`, name.slice(0, 100));
  }
  return titles;
}

/**
 * A set's exercise as a readable name from the SDK's profile: the category's own list of names
 * (`benchPressExerciseName[1]`, "barbellBenchPress", becomes "Barbell bench press"), or the
 * category alone ("Bench press") when the watch did not say which one, or "Unknown exercise" when
 * it did not recognise the movement at all.
 */
export function exerciseName(set: Pick<SetMesg, 'category' | 'categorySubtype'>, titles: ReadonlyMap<string, string> = new Map()): string {
  const category = set.category?.[0];
  const subtype = set.categorySubtype?.[0];
  if (typeof category !== 'string' || category === 'unknown') return 'Unknown exercise';
  if (typeof subtype === 'number' && subtype !== UNKNOWN_EXERCISE && subtype !== INVALID_UINT16) {
    const titled = titles.get(`${category}/${subtype}`);
    if (titled) return titled;
    const name = Profile.types[`${category}ExerciseName`]?.[subtype];
    if (name) return readable(name);
  }
  return readable(category);
}

/** "barbellBenchPress" as "Barbell bench press"; digits stay with their word ("45DegreePlank" as "45 degree plank"). */
export function readable(camel: string): string {
  const words = camel
    .replace(/_/g, ' ')
    .split(/(?<=[a-z])(?=[A-Z0-9])|(?<=[0-9])(?=[A-Za-z])|\s+/)
    .filter(Boolean);
  const text = words.map((w, i) => (i === 0 ? w[0]!.toUpperCase() + w.slice(1) : /^[A-Z]{2,}$/.test(w) ? w : w.toLowerCase())).join(' ');
  return text.slice(0, 100) || 'Exercise';
}

/** A value over 0, as `round` makes it; null for none (the SDK leaves out a field the device marked invalid). */
function positive(value: number | undefined, round: (v: number) => number = (v) => v): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const v = round(value);
  return v > 0 ? v : null;
}

/** Checks a value against what the record holds: a value past it is refused, naming the message, rather than cut to fit. */
function bounded(where: string, refuse: (message: string) => never) {
  return (field: string, value: number | null, max: number, unit: string): number | null => {
    if (value !== null && value > max)
      refuse(`${where} has ${field} ${value}${unit ? ` ${unit}` : ''}, more than the ${max}${unit ? ` ${unit}` : ''} a record holds`);
    return value;
  };
}

/**
 * A weight-scale file's readings: weight (kg) and body fat (percent), each a measurement keyed by
 * the device, the reading's time and its metric rather than by the file id: a device's weight file
 * is a circular buffer of its latest readings, so two files of one scale share readings, and each
 * is imported once. The same file again is skipped all the same. A reading the scale could not
 * take is left out; a file with none is refused, as it would import nothing.
 */
function measurementsOf(readings: readonly WeightScaleMesg[], device: string, entry: string | null, refuse: (message: string) => never): ParsedMeasurement[] {
  const out: ParsedMeasurement[] = [];
  for (const r of readings) {
    const at = instantOf(r.timestamp);
    if (!at) continue;
    const within = bounded(`the reading at ${at}`, refuse);
    const add = (metric: ParsedMeasurement['metric'], value: number | undefined) => {
      const v = within(
        metric === 'bodyweight' ? 'weight' : 'body fat',
        positive(value, (x) => Math.round(x * 100) / 100),
        RECORD_BOUNDS.measurementValue,
        '',
      );
      if (v !== null) out.push({ source_ref: `${device}:${at}:${metric}`, measured_at: at, metric, value: v, line: 1, entry });
    };
    add('bodyweight', r.weight);
    // Percent, the body_fat metric's canonical unit; over 100 is not a reading.
    if (typeof r.percentFat === 'number' && r.percentFat <= 100) add('body_fat', r.percentFat);
  }
  if (out.length === 0) refuse('the weight-scale file holds no weight or body-fat reading');
  return out;
}
