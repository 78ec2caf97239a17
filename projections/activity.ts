// Training activity by local date and by week: how many workouts, and per exercise how many
// sessions and completed working sets. The training snapshot reads these few documents instead
// of the history. Each workout's contribution is remembered so that an edit, a delete or a
// timezone change moves it.
import type { RecordItem } from '../contracts/record.ts';
import { isDone } from '../services/domain/record-indicators.ts';
import { addDays, localDateOf, weekStart } from '../services/domain/time.ts';
import type { Doc, Documents } from '../services/store/read-store.ts';
import { timezoneOf } from './athletes.ts';
import { athleteOf, BY_ID, firstCreatedAt, forEachDoc, type Projection } from './projection.ts';

export const ACTIVITY_DAYS = 'activity_days';
export const ACTIVITY_WEEKS = 'activity_weeks';
export const ACTIVITY_RUNS = 'activity_runs';
const BY_TO = { name: 'by_to', fields: ['to', 'id'] };
const ACTIVITY_WORKOUTS = 'activity_workouts';

type ExerciseCounts = Record<string, { sessions: number; sets: number }>;

/** One local date: its id is the date. */
export interface ActivityDayDoc extends Doc {
  workouts: number;
  exercises: ExerciseCounts;
}

/** One week: its id is the Monday. */
export interface ActivityWeekDoc extends Doc {
  workouts: number;
}

/**
 * A run of consecutive active weeks: its id is the first Monday, `to` the last. Kept as weeks turn
 * active or inactive, so a streak is one document however long the history.
 */
export interface ActivityRunDoc extends Doc {
  to: string;
}

interface Contribution extends Doc {
  /** The instant the local date comes from: the start, else the creation. */
  basis: string;
  created_at: string;
  local_date: string;
  /** Completed working sets per exercise of this workout. */
  exercises: Record<string, number>;
}

function setsByExercise(w: RecordItem<'workout'>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of w.exercises) out[e.exercise_id] = (out[e.exercise_id] ?? 0) + e.sets.filter(isDone).length;
  return out;
}

async function add(docs: Documents, athleteId: string, c: Contribution, sign: 1 | -1): Promise<void> {
  const day = (await docs.get<ActivityDayDoc>(ACTIVITY_DAYS, athleteId, c.local_date)) ?? { id: c.local_date, workouts: 0, exercises: {} };
  const exercises: ExerciseCounts = { ...day.exercises };
  for (const [id, sets] of Object.entries(c.exercises)) {
    const current = exercises[id] ?? { sessions: 0, sets: 0 };
    const next = { sessions: current.sessions + sign, sets: current.sets + sign * sets };
    if (next.sessions === 0) delete exercises[id];
    else exercises[id] = next;
  }
  const workouts = day.workouts + sign;
  if (workouts === 0) await docs.delete(ACTIVITY_DAYS, athleteId, day.id);
  else await docs.upsert(ACTIVITY_DAYS, athleteId, { id: day.id, workouts, exercises } satisfies ActivityDayDoc);

  const monday = weekStart(c.local_date);
  const week = (await docs.get<ActivityWeekDoc>(ACTIVITY_WEEKS, athleteId, monday))?.workouts ?? 0;
  if (week + sign === 0) await docs.delete(ACTIVITY_WEEKS, athleteId, monday);
  else await docs.upsert(ACTIVITY_WEEKS, athleteId, { id: monday, workouts: week + sign } satisfies ActivityWeekDoc);
  if (week === 0) await joinRuns(docs, athleteId, monday);
  if (week + sign === 0) await splitRun(docs, athleteId, monday);
}

/** A week turned active: it joins the run ending the week before and the run starting the week after. */
async function joinRuns(docs: Documents, athleteId: string, monday: string): Promise<void> {
  const [before] = await docs.page<ActivityRunDoc>(ACTIVITY_RUNS, {
    partition: athleteId,
    index: BY_TO.name,
    prefix: [addDays(monday, -7)],
    direction: 'asc',
    limit: 1,
  });
  const after = await docs.get<ActivityRunDoc>(ACTIVITY_RUNS, athleteId, addDays(monday, 7));
  if (after) await docs.delete(ACTIVITY_RUNS, athleteId, after.id);
  await docs.upsert(ACTIVITY_RUNS, athleteId, { id: before?.id ?? monday, to: after?.to ?? monday } satisfies ActivityRunDoc);
}

/** A week turned inactive: the run holding it loses it, becoming up to two runs. */
async function splitRun(docs: Documents, athleteId: string, monday: string): Promise<void> {
  const [run] = await docs.page<ActivityRunDoc>(ACTIVITY_RUNS, {
    partition: athleteId,
    index: BY_ID.name,
    range: { lte: monday },
    direction: 'desc',
    limit: 1,
  });
  if (!run || run.to < monday) throw new Error(`activity runs of ${athleteId} do not hold the active week ${monday}`);
  if (run.id === monday) await docs.delete(ACTIVITY_RUNS, athleteId, run.id);
  else await docs.upsert(ACTIVITY_RUNS, athleteId, { id: run.id, to: addDays(monday, -7) } satisfies ActivityRunDoc);
  if (run.to !== monday) await docs.upsert(ACTIVITY_RUNS, athleteId, { id: addDays(monday, 7), to: run.to } satisfies ActivityRunDoc);
}

export const activityProjection: Projection = {
  name: 'activity',
  // 2: runs of active weeks.
  version: 2,
  collections: [
    { name: ACTIVITY_DAYS, indexes: [BY_ID] },
    { name: ACTIVITY_WEEKS, indexes: [BY_ID] },
    { name: ACTIVITY_RUNS, indexes: [BY_ID, BY_TO] },
    { name: ACTIVITY_WORKOUTS, indexes: [BY_ID] },
  ],
  handles: (type) => type.startsWith('workout.') || type === 'athlete.profile_updated',
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    const tz = await timezoneOf(docs, athleteId);
    if (event.type === 'athlete.profile_updated') {
      await forEachDoc<Contribution>(docs, ACTIVITY_WORKOUTS, athleteId, BY_ID, async (c) => {
        const local = localDateOf(c.basis, tz);
        if (local === c.local_date) return;
        await add(docs, athleteId, c, -1);
        const moved = { ...c, local_date: local };
        await add(docs, athleteId, moved, 1);
        await docs.upsert(ACTIVITY_WORKOUTS, athleteId, moved);
      });
      return;
    }
    const data = event.data as { item?: RecordItem<'workout'>; id?: string };
    const workoutId = data.item?.id ?? data.id!;
    const previous = await docs.get<Contribution>(ACTIVITY_WORKOUTS, athleteId, workoutId);
    if (previous) await add(docs, athleteId, previous, -1);
    if (!data.item) {
      await docs.delete(ACTIVITY_WORKOUTS, athleteId, workoutId);
      return;
    }
    // The creation time is the first event's; it stands in for a start the workout never had.
    const createdAt = previous?.created_at ?? firstCreatedAt(event);
    const basis = data.item.started_at ?? createdAt;
    const next = { id: workoutId, basis, created_at: createdAt, local_date: localDateOf(basis, tz), exercises: setsByExercise(data.item) };
    await add(docs, athleteId, next, 1);
    await docs.upsert(ACTIVITY_WORKOUTS, athleteId, next);
  },
};
