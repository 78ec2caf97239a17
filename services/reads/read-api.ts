// The Read API's resources (spec 2.11, 4.4) in the bot's shape, from the same loaders and read
// models as Agent Access: the stats are trainingStats', the record labels the record projection's,
// so a bot and an agent never see different numbers for the same record. Ids are the record's
// own (opaque to bots); timestamps are UTC ISO; units canonical.
import type { KeyObject } from 'node:crypto';
import type { Me, ReadApiListQuery, SavedWorkoutDetail, SavedWorkoutSummary, Stats, WorkoutDetail, WorkoutSummary } from '../../contracts/read-api.ts';
import { WORKOUTS, type WorkoutSummaryDoc } from '../../projections/workouts.ts';
import type { AthleteAccount } from '../domain/athlete.ts';
import { DomainError } from '../domain/errors.ts';
import type { ReadStore } from '../store/read-store.ts';
import { keysetPage, type KeysetList } from './lists.ts';
import { loadSavedRoutine, routinesList, type RoutineDoc } from './routines.ts';
import { trainingStats } from './stats.ts';
import { UNKNOWN_EXERCISE } from './text.ts';
import { indicatorsOf, loadCompletedWorkout } from './workouts.ts';

/** Every completed workout, newest first: by end time, then id (unique, so the order is total). */
export const workoutsList: KeysetList<WorkoutSummaryDoc> = {
  operation: 'list_workouts',
  collection: WORKOUTS,
  index: 'by_ended',
  keyOf: (w) => [w.ended_at, w.id],
};
const savedWorkoutsList = routinesList('list_saved_workouts');

/** An instant as UTC ISO (`…Z`), whatever offset it was recorded with. */
export const utc = (instant: string): string => new Date(instant).toISOString();

/** The same refusal for an id of another athlete and one that does not exist: it reveals nothing. */
const notFound = (what: string) => new DomainError('not_found', `no ${what} with this id in this record`);

export function me(athlete: AthleteAccount): Me {
  const p = athlete.profile;
  return { display_name: p.display_name, unit_preference: p.unit_preference, timezone: p.timezone };
}

export async function stats(reads: ReadStore, athlete: AthleteAccount, now: Date): Promise<Stats> {
  const { timezone } = athlete.profile;
  const s = await trainingStats(reads, athlete.athlete_id, timezone, now);
  return {
    timezone,
    as_of: now.toISOString(),
    this_week: { from: s.monday, to: s.today, completed_workouts: s.counts.thisWeek },
    rolling_30_days: { from: s.from30, to: s.today, completed_workouts: s.counts.last30Days },
    consecutive_active_weeks: s.streak.weeks,
    streak_is_current: s.streak.current,
  };
}

function workoutSummary(w: WorkoutSummaryDoc): WorkoutSummary {
  return {
    id: w.id,
    title: w.title,
    started_at: w.started_at === null ? null : utc(w.started_at),
    ended_at: utc(w.ended_at),
    duration_seconds: w.duration.seconds,
    exercise_count: w.exercise_count,
    completed_set_count: w.achieved_set_count,
  };
}

export async function listWorkouts(reads: ReadStore, athleteId: string, query: ReadApiListQuery, cursorKey: KeyObject) {
  const { docs, next_cursor } = await keysetPage(reads, athleteId, query, cursorKey, workoutsList);
  return { items: docs.map(workoutSummary), next_cursor };
}

export async function getWorkout(reads: ReadStore, athleteId: string, workoutId: string): Promise<WorkoutDetail> {
  const loaded = await loadCompletedWorkout(reads, athleteId, workoutId);
  if (!loaded) throw notFound('completed workout');
  return {
    ...workoutSummary(loaded.summary),
    exercises: loaded.exercises.map((e) => ({
      exercise_id: e.entry.exercise_id,
      name: e.exercise?.name ?? UNKNOWN_EXERCISE,
      muscle_group: e.exercise?.muscle_group ?? null,
      tracking_type: e.exercise?.tracking_type ?? 'weight_reps',
      superset_id: e.entry.superset_id,
      // Completed performance only: a set not completed was planned, not done.
      sets: e.entry.sets
        .filter((s) => s.completed)
        .map((s) => ({
          position: s.position,
          set_number: s.set_number,
          set_type: s.set_type,
          weight_kg: s.weight_kg,
          reps: s.reps,
          rpe: s.rpe,
          duration_seconds: s.duration_seconds,
          distance_metres: s.distance_metres,
          incline_percent: s.incline_percent,
          record_indicators: indicatorsOf(e, s),
        })),
    })),
  };
}

function savedWorkoutSummary(r: RoutineDoc): SavedWorkoutSummary {
  return { id: r.id, title: r.title, exercise_count: r.exercise_count, updated_at: utc(r.updated_at) };
}

export async function listSavedWorkouts(reads: ReadStore, athleteId: string, query: ReadApiListQuery, cursorKey: KeyObject) {
  const { docs, next_cursor } = await keysetPage(reads, athleteId, query, cursorKey, savedWorkoutsList);
  return { items: docs.map(savedWorkoutSummary), next_cursor };
}

export async function getSavedWorkout(reads: ReadStore, athleteId: string, routineId: string): Promise<SavedWorkoutDetail> {
  const loaded = await loadSavedRoutine(reads, athleteId, routineId);
  if (!loaded) throw notFound('saved workout');
  return {
    ...savedWorkoutSummary(loaded.routine),
    exercises: loaded.exercises.map(({ entry, exercise }) => ({
      exercise_id: entry.exercise_id,
      name: exercise?.name ?? UNKNOWN_EXERCISE,
      muscle_group: exercise?.muscle_group ?? null,
      tracking_type: exercise?.tracking_type ?? null,
      sets: entry.sets,
      reps: entry.reps,
      rest_seconds: entry.rest_seconds,
    })),
  };
}
