// A realistic record for the benchmark and the end-to-end tests: the account as the tests register
// it, workouts through the CLI's Hevy import (the same code `repledger import hevy` runs), and the
// rest of the record (routines, goals, feedback, check-ins, meals, body measurements) as one batch
// of record changes.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFile } from '../../cli/import.ts';
import type { RecordItem } from '../../contracts/record.ts';
import { WORKOUTS, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import type { App } from '../../services/app.ts';
import type { RecordChange } from '../../services/domain/record.ts';
import { addDays, dayNumber, localDateOf, zonedTimeToUtc, type LocalDateTime } from '../../services/domain/time.ts';
import { parseHevy } from '../../services/import/hevy.ts';
import { createRandom, formatHevyExport, generateTrainingLog, type GeneratedWorkout, type Random } from '../fixtures/hevy-export.ts';
import { registerPro } from './connect.ts';

/** registerPro's profile: every date below is local to it. */
const TIMEZONE = 'Europe/London';

export interface AthleteSpec {
  /** How the bench names the athlete in its output. */
  label: string;
  email: string;
  workouts: number;
}

export interface SeededAthlete extends AthleteSpec {
  athleteId: string;
  firstWorkoutDate: string;
  lastWorkoutDate: string;
}

/**
 * One training history for every athlete, each getting its newest `workouts` sessions. The last
 * weeks are then the same workouts for everyone, so each list's default 30-day window answers
 * with the same content and size: only the depth of history behind it differs, which is what the
 * 10,000/100 latency ratio is meant to isolate.
 */
export function trainingHistory(workouts: number, today: string): GeneratedWorkout[] {
  const log = generateTrainingLog({ workouts, seed: 7 });
  return redate(log, addDays(today, -1));
}

/**
 * The generator trains every two to three days, which would put 10,000 workouts back in the
 * 1950s. A serious lifter trains about six days a week, so the history is re-dated to that rhythm
 * ending `lastDate`: 10,000 sessions then span ~31 years, and a 30-day window holds ~26.
 */
function redate(log: GeneratedWorkout[], lastDate: string): GeneratedWorkout[] {
  const random = createRandom(11);
  const dates: string[] = [];
  let date = lastDate;
  for (let i = log.length - 1; i >= 0; i--) {
    dates[i] = date;
    date = addDays(date, -random.pick([1, 1, 1, 1, 1, 1, 2]));
  }
  return log.map((w, i) => ({ ...w, start: onDate(w.start, dates[i]!), end: onDate(w.end, dates[i]!) }));
}

function onDate(t: LocalDateTime, date: string): LocalDateTime {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return { ...t, year, month, day };
}

function localDate(t: LocalDateTime): string {
  return `${t.year}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;
}

export async function seedAthlete(app: App, spec: AthleteSpec, history: GeneratedWorkout[], workDir: string): Promise<SeededAthlete> {
  const athleteId = await registerPro(app, spec.email);
  const workouts = history.slice(-spec.workouts);
  await importWorkouts(app, spec, workouts, workDir);
  const first = localDate(workouts[0]!.start);
  const last = localDate(workouts[workouts.length - 1]!.start);
  await app.records.change(athleteId, await restOfRecord(app, athleteId, first, last), { type: 'athlete', id: athleteId });
  return { ...spec, athleteId, firstWorkoutDate: first, lastWorkoutDate: last };
}

/** Writes the Hevy export and imports it as `repledger import hevy --file` does. */
async function importWorkouts(app: App, spec: AthleteSpec, workouts: GeneratedWorkout[], workDir: string): Promise<void> {
  const file = join(workDir, `hevy-${spec.label}.csv`);
  writeFileSync(file, formatHevyExport(workouts));
  const summary = await importFile(
    app,
    { app: 'hevy', athlete: spec.email, file, log: () => undefined, progress: { update: () => undefined, stop: () => undefined } },
    (text, athlete) => parseHevy(text, { timezone: athlete.profile.timezone }),
  );
  if (summary.workouts_added !== workouts.length) throw new Error(`imported ${summary.workouts_added} of ${workouts.length} workouts for ${spec.email}`);
}

/**
 * Routines, goals and feedback on the newest workouts, plus daily check-ins, meals and body
 * measurements. Those dailies cover the athlete's history up to three years: enough for the
 * long-history athlete to hold ten times the short one's, while seeding stays quick.
 */
async function restOfRecord(app: App, athleteId: string, firstWorkoutDate: string, lastWorkoutDate: string): Promise<RecordChange[]> {
  // The same seed for every athlete: their routines and recent days come out alike too.
  const random = createRandom(3);
  const exerciseIds = await catalog(app, athleteId);
  const recent = await app.reads.page<WorkoutSummaryDoc>(WORKOUTS, { partition: athleteId, index: 'by_ended', direction: 'desc', limit: 20 });
  const days = Math.min(dayNumber(lastWorkoutDate) - dayNumber(firstWorkoutDate) + 1, 3 * 365);
  const dates = Array.from({ length: days }, (_, i) => addDays(lastWorkoutDate, -i));
  const create = <K extends RecordChange['kind']>(kind: K, item: RecordItem<K>): RecordChange => ({ op: 'create', kind, item });
  return [
    ...routines(random, exerciseIds).map((r) => create('routine', r)),
    ...goals(exerciseIds).map((g) => create('goal', g)),
    ...recent.map((w) => create('feedback', feedbackOn(random, w))),
    ...dates.map((d) => create('checkin', checkin(random, d))),
    ...dates.flatMap((d) => meals(random, d)).map((m) => create('meal', m)),
    ...dates.flatMap((d, i) => measurements(random, d, i)).map((b) => create('body_measurement', b)),
  ];
}

async function catalog(app: App, athleteId: string): Promise<string[]> {
  const exercises = await app.reads.page<{ id: string }>('exercises', { partition: athleteId, index: 'by_name', direction: 'asc', limit: 100 });
  if (exercises.length < 8) throw new Error(`expected the import to create the exercise catalog, found ${exercises.length} exercises`);
  return exercises.map((e) => e.id);
}

/**
 * Routines saved together tie on updated_at and are listed by id after that, so their ids start
 * with their index: every athlete's list then leads with the same routine, and get_saved_routine
 * reads the same one for both.
 */
function routines(random: Random, exerciseIds: string[]): RecordItem<'routine'>[] {
  const titles = ['Push A', 'Pull A', 'Legs A', 'Push B', 'Pull B', 'Legs B', 'Upper', 'Lower', 'Full Body', 'Deload'];
  return titles.map((title, r) => ({
    id: `${String(r).padStart(8, '0')}${randomUUID().slice(8)}`,
    title,
    exercises: Array.from({ length: random.int(4, 7) }, (_, position) => ({
      position,
      exercise_id: exerciseIds[(r * 3 + position) % exerciseIds.length]!,
      sets: random.int(3, 5),
      reps: random.pick(['5', '8-12', '10', '6-8']),
      target_rpe: random.chance(0.5) ? 8 : null,
      rest_seconds: random.pick([60, 90, 120, 180]),
    })),
    scheduled_dates: [],
  }));
}

function goals(exerciseIds: string[]): RecordItem<'goal'>[] {
  const goal = (g: Omit<RecordItem<'goal'>, 'id' | 'achieved_at'>): RecordItem<'goal'> => ({ id: randomUUID(), achieved_at: null, ...g });
  return [
    goal({ goal_type: 'target_1rm', status: 'active', exercise_id: exerciseIds[0]!, target_value: 140, target_unit: 'kg' }),
    goal({ goal_type: 'weekly_session_count', status: 'active', exercise_id: null, target_value: 5, target_unit: 'sessions' }),
    goal({ goal_type: 'target_bodyweight', status: 'active', exercise_id: null, target_value: 80, target_unit: 'kg' }),
    goal({ goal_type: 'daily_protein', status: 'active', exercise_id: null, target_value: 160, target_unit: 'g' }),
    goal({ goal_type: 'daily_calories', status: 'archived', exercise_id: null, target_value: 2800, target_unit: 'kcal' }),
  ];
}

function feedbackOn(random: Random, w: WorkoutSummaryDoc): RecordItem<'feedback'> {
  return {
    id: w.id,
    difficulty: random.pick(['easier_than_expected', 'as_expected', 'as_expected', 'harder_than_expected'] as const),
    next_time_intent: random.pick(['keep', 'keep', 'review'] as const),
    recorded_at: new Date(Date.parse(w.ended_at) + 10 * 60_000).toISOString(),
  };
}

function checkin(random: Random, date: string): RecordItem<'checkin'> {
  const scale = () => random.int(1, 5) as 1 | 2 | 3 | 4 | 5;
  return { id: randomUUID(), date, sleep_quality: scale(), energy: scale(), soreness: scale(), stress: scale() };
}

/** An instant of a local wall-clock time on `date`. */
function at(date: string, hour: number, minute = 0): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return zonedTimeToUtc({ year, month, day, hour, minute, second: 0 }, TIMEZONE);
}

function meals(random: Random, date: string): RecordItem<'meal'>[] {
  const meal = (hour: number, name: string, kcal: number, protein: number): RecordItem<'meal'> => ({
    id: randomUUID(),
    eaten_at: at(date, hour, random.int(0, 59)),
    name,
    calories_kcal: kcal + random.int(-50, 50),
    protein_g: protein,
    // Macros are not always logged: the daily totals say so rather than count them as zero.
    carbohydrate_g: random.chance(0.7) ? random.int(30, 120) : null,
    fat_g: random.chance(0.7) ? random.int(10, 40) : null,
  });
  return [
    meal(7, 'Porridge with berries', 450, 20),
    meal(13, random.pick(['Chicken rice bowl', 'Tuna salad', 'Lentil soup']), 700, 45),
    meal(19, random.pick(['Salmon and potatoes', 'Beef stir fry', 'Pasta bake']), 850, 50),
  ];
}

/** Bodyweight every other morning; waist and body fat once a week. */
function measurements(random: Random, date: string, daysBack: number): RecordItem<'body_measurement'>[] {
  const measure = (metric: RecordItem<'body_measurement'>['metric'], value: number): RecordItem<'body_measurement'> => ({
    id: randomUUID(),
    measured_at: at(date, 7, random.int(0, 30)),
    metric,
    value,
  });
  const out: RecordItem<'body_measurement'>[] = [];
  if (daysBack % 2 === 0) out.push(measure('bodyweight', Math.round((82 + random.next() * 2) * 10) / 10));
  if (daysBack % 7 === 0)
    out.push(measure('waist', Math.round((0.84 + random.next() * 0.03) * 1000) / 1000), measure('body_fat', Math.round((16 + random.next() * 2) * 10) / 10));
  return out;
}

/** The local date of now in the athletes' time zone: where the default 30-day windows end. */
export function todayLocal(now = Date.now()): string {
  return localDateOf(now, TIMEZONE);
}
