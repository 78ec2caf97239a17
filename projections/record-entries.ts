// One entry per workout and exercise: the sets of the exercise done in that workout, and their
// record indicators (historical-record-at-completion.v1). An exercise's entries are its history
// (get_exercise_history, by local date) and the record labels of a workout's sets.
//
// Each entry keeps the best values after it, so a new workout needs only the entry before it; a
// workout changed or added in the past re-labels the later entries of its exercises until they
// agree with what is stored again.
//
// Each entry also keeps which set holds each best after it (`holders`), and every exercise has a
// summary: its catalog fields, how many workouts include it, its first and last, and its latest
// entry's bests and holders. Personal records and the exercise list then read one document per
// exercise instead of walking its history.
import type { RecordItem, WorkoutSet } from '../contracts/record.ts';
import { sortName } from '../services/domain/exercise-search.ts';
import { isDone, NO_BEST, recordsOf, indicatorValue, type Best, type Indicator } from '../services/domain/record-indicators.ts';
import { localDateOf } from '../services/domain/time.ts';
import type { StoredEvent } from '../services/store/event-store.ts';
import type { Doc, Documents, KeyValue } from '../services/store/read-store.ts';
import { timezoneOf } from './athletes.ts';
import { athleteOf, BY_ID, changedAt, firstCreatedAt, rebucketLocalDates, type Projection } from './projection.ts';

export const RECORD_INDICATORS = 'record_indicators';
export const EXERCISE_SUMMARIES = 'exercise_summaries';
export const BY_EXERCISE = 'by_exercise';
/** An exercise's entries by local date: its history as get_exercise_history windows it. */
export const BY_EXERCISE_DATE = 'by_exercise_date';
const BY_WORKOUT = 'by_workout';
/** Each workout's creation time, kept even while it has no exercises: an entry's local date comes from it when the workout has no start. */
const RECORD_WORKOUTS = 'record_workouts';
/** Exercises by folded name (see exercise-search.ts), ids breaking ties. */
export const BY_SORT_NAME = { name: 'by_sort_name', fields: ['sort_name', 'id'] };

/** The set that holds a best: where it was done and what it was. */
export interface RecordHolder {
  value: number;
  workout_id: string;
  ended_at: string;
  set_number: number;
  weight_kg: number | null;
  reps: number | null;
}
export type Holders = Record<Indicator, RecordHolder | null>;
export const NO_HOLDERS: Holders = { weight: null, reps: null, set_volume: null, estimated_1rm: null };

/** The bests after an entry and the sets holding them. */
interface Standing {
  after: Best;
  holders: Holders;
}
const NO_STANDING: Standing = { after: NO_BEST, holders: NO_HOLDERS };

export interface ExerciseSummaryDoc extends Doc {
  /** Null for an exercise a workout names that the catalog does not hold (a damaged store). */
  name: string | null;
  sort_name: string;
  muscle_group: string | null;
  tracking_type: RecordItem<'exercise'>['tracking_type'] | null;
  /** Completed workouts that include the exercise. */
  session_count: number;
  first_done_at: string | null;
  last_done_at: string | null;
  best: Best;
  holders: Holders;
  computed_at: string;
}

export interface RecordEntryDoc extends Doc {
  exercise_id: string;
  workout_id: string;
  ended_at: string;
  /** The instant the local date comes from: the workout's start, else its creation. */
  local_basis: string;
  local_date: string;
  /**
   * The exercise's sets done in the workout (completed, not warm-ups), in workout order, each with
   * where it stands in the workout: what its history shows and all the records rule can count (it
   * also leaves out drop sets without an eligible parent). The others are in the workout's detail.
   */
  sets: Array<WorkoutSet & { exercise_order: number }>;
  /** Labels by `<exercise_order>:<position>`. */
  labels: Record<string, Indicator[]>;
  sample_count: number;
  after: Best;
  holders: Holders;
  computed_at: string;
}

export const setKey = (exerciseOrder: number, position: number) => `${exerciseOrder}:${position}`;

/** One workout's entries, an exercise listed twice in the workout being one entry. */
function entriesOf(w: RecordItem<'workout'>): Map<string, RecordEntryDoc['sets']> {
  const out = new Map<string, RecordEntryDoc['sets']>();
  for (const e of [...w.exercises].sort((a, b) => a.exercise_order - b.exercise_order)) {
    // In position order, which the workout shows, whatever order the list came in: a tie goes to the set shown first.
    const sets = [...e.sets]
      .sort((a, b) => a.position - b.position)
      .filter(isDone)
      .map((s) => ({ ...s, exercise_order: e.exercise_order }));
    out.set(e.exercise_id, [...(out.get(e.exercise_id) ?? []), ...sets]);
  }
  return out;
}

/** Labels of an entry given the standing before it; sets are renumbered so positions are unique. */
function label(entry: Position & { sets: RecordEntryDoc['sets'] }, prior: Standing) {
  const { sets } = entry;
  const index = new Map(sets.map((s, i) => [setKey(s.exercise_order, s.position), i]));
  const renumbered = sets.map((s, i) => ({
    ...s,
    position: i,
    parent_position: s.parent_position === null ? null : (index.get(setKey(s.exercise_order, s.parent_position)) ?? null),
  }));
  const r = recordsOf(renumbered, prior.after);
  const labels: Record<string, Indicator[]> = {};
  const holders = { ...prior.holders };
  for (const [i, l] of Object.entries(r.labels)) {
    const s = sets[Number(i)]!;
    labels[setKey(s.exercise_order, s.position)] = l;
    // A label is a new best, so its set holds that best from here on.
    for (const indicator of l) {
      holders[indicator] = {
        value: indicatorValue(indicator, s)!,
        workout_id: entry.workout_id,
        ended_at: entry.ended_at,
        set_number: s.set_number,
        weight_kg: s.weight_kg,
        reps: s.reps,
      };
    }
  }
  return { labels, sample_count: r.sampleCount, after: r.after, holders };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const recordsProjection: Projection = {
  name: 'record_indicators',
  // 2: entries keep their holders; exercise summaries. 3: entries keep only eligible sets.
  // 4: entries keep the sets done, with their local dates: they are the exercises' history too
  // (which the exercise_history projection kept, a second copy of every set).
  // 5: an entry's sets in position order, not the order of the workout's list, so that a tie within
  // a workout goes to the set the workout shows first.
  version: 5,
  collections: [
    {
      name: RECORD_INDICATORS,
      indexes: [
        { name: BY_EXERCISE, fields: ['exercise_id', 'ended_at', 'workout_id'] },
        { name: BY_EXERCISE_DATE, fields: ['exercise_id', 'local_date', 'ended_at', 'workout_id'] },
        { name: BY_WORKOUT, fields: ['workout_id', 'id'] },
        BY_ID,
      ],
    },
    { name: EXERCISE_SUMMARIES, indexes: [BY_SORT_NAME] },
    { name: RECORD_WORKOUTS, indexes: [] },
  ],
  handles: (type) => type.startsWith('workout.') || type.startsWith('exercise.') || type === 'athlete.profile_updated',
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    if (event.type === 'athlete.profile_updated') {
      await rebucketLocalDates<RecordEntryDoc>(docs, RECORD_INDICATORS, athleteId, await timezoneOf(docs, athleteId), (e) => e.local_basis);
      return;
    }
    const at = changedAt(event);
    if (event.type.startsWith('exercise.')) return catalogChanged(docs, athleteId, event.data as { item?: RecordItem<'exercise'>; id?: string }, at);
    const data = event.data as { item?: RecordItem<'workout'>; id?: string };
    const workoutId = data.item?.id ?? data.id!;
    // A workout just created has no entries yet (a deleted one's went with it).
    const old =
      event.type === 'workout.created'
        ? []
        : await docs.page<RecordEntryDoc>(RECORD_INDICATORS, { partition: athleteId, index: BY_WORKOUT, prefix: [workoutId], direction: 'asc', limit: 500 });
    if (old.length > 0) await docs.deleteWhere(RECORD_INDICATORS, athleteId, BY_WORKOUT, [workoutId]);
    const fresh = data.item ? entriesOf(data.item) : new Map<string, RecordEntryDoc['sets']>();
    const local = data.item ? await localOf(docs, event, data.item) : null;
    if (!data.item) await docs.delete(RECORD_WORKOUTS, athleteId, workoutId);
    const exercises = new Set([...old.map((d) => d.exercise_id), ...fresh.keys()]);
    for (const exerciseId of exercises) {
      const sets = fresh.get(exerciseId);
      const added = sets && data.item && local ? { ended_at: data.item.ended_at, workout_id: workoutId, ...local, sets } : null;
      const removedAt = old.find((d) => d.exercise_id === exerciseId)?.ended_at ?? null;
      if (added && removedAt === null && (await appendLatest(docs, athleteId, exerciseId, added, at))) continue;
      const from = [added?.ended_at, removedAt].filter((x): x is string => !!x).sort()[0]!;
      const removed = removedAt === null ? null : { ended_at: removedAt, workout_id: workoutId };
      await relabel(docs, athleteId, exerciseId, from, added, removed, at);
      await summarise(docs, athleteId, exerciseId, (sets ? 1 : 0) - (removedAt === null ? 0 : 1), at);
    }
  },
};

/**
 * A workout's local date and the instant it comes from: its start, else its creation, in the
 * record timezone (spec 4.4, stats rule 2), as the workouts projection dates it. The creation
 * time is kept here from the workout's first event.
 */
async function localOf(docs: Documents, event: StoredEvent, w: RecordItem<'workout'>): Promise<Pick<RecordEntryDoc, 'local_basis' | 'local_date'>> {
  const athleteId = athleteOf(event);
  let creation = event.type === 'workout.created' ? null : await docs.get<{ id: string; created_at: string }>(RECORD_WORKOUTS, athleteId, w.id);
  if (!creation) {
    creation = { id: w.id, created_at: firstCreatedAt(event) };
    await docs.upsert(RECORD_WORKOUTS, athleteId, creation);
  }
  const localBasis = w.started_at ?? creation.created_at;
  return { local_basis: localBasis, local_date: localDateOf(localBasis, await timezoneOf(docs, athleteId)) };
}

function unlisted(id: string, at: string): ExerciseSummaryDoc {
  return {
    id,
    name: null,
    sort_name: '',
    muscle_group: null,
    tracking_type: null,
    session_count: 0,
    first_done_at: null,
    last_done_at: null,
    best: NO_BEST,
    holders: NO_HOLDERS,
    computed_at: at,
  };
}

/** An exercise created, renamed or deleted: its summary's catalog fields follow, its history stays. */
async function catalogChanged(docs: Documents, athleteId: string, data: { item?: RecordItem<'exercise'>; id?: string }, at: string): Promise<void> {
  if (!data.item) return docs.delete(EXERCISE_SUMMARIES, athleteId, data.id!);
  const e = data.item;
  const current = (await docs.get<ExerciseSummaryDoc>(EXERCISE_SUMMARIES, athleteId, e.id)) ?? unlisted(e.id, at);
  await docs.upsert(EXERCISE_SUMMARIES, athleteId, {
    ...current,
    name: e.name,
    sort_name: sortName(e.name),
    muscle_group: e.muscle_group,
    tracking_type: e.tracking_type,
  } satisfies ExerciseSummaryDoc);
}

/** After an exercise's entries changed: its session count moves by `sessions`; first, last and bests are read off its entries. */
async function summarise(docs: Documents, athleteId: string, exerciseId: string, sessions: number, at: string): Promise<void> {
  const ends = (direction: 'asc' | 'desc') =>
    docs.page<RecordEntryDoc>(RECORD_INDICATORS, { partition: athleteId, index: BY_EXERCISE, prefix: [exerciseId], direction, limit: 1 });
  const [first] = await ends('asc');
  const [last] = await ends('desc');
  const current = (await docs.get<ExerciseSummaryDoc>(EXERCISE_SUMMARIES, athleteId, exerciseId)) ?? unlisted(exerciseId, at);
  await docs.upsert(EXERCISE_SUMMARIES, athleteId, {
    ...current,
    session_count: current.session_count + sessions,
    first_done_at: first?.ended_at ?? null,
    last_done_at: last?.ended_at ?? null,
    best: last?.after ?? NO_BEST,
    holders: last?.holders ?? NO_HOLDERS,
    computed_at: at,
  } satisfies ExerciseSummaryDoc);
}

/**
 * The common case, a workout done after every other of the exercise (a session logged, an import
 * in date order): the exercise's summary holds the standing of its latest entry, and no entry
 * comes after the new one, so it is labelled from the summary and nothing else is read. Returns
 * false, having written nothing, when the entry does not come strictly after the latest one or the
 * summary does not know the latest (it has no entries, or was made again after its exercise was
 * deleted): the walk over the entries then decides.
 */
async function appendLatest(docs: Documents, athleteId: string, exerciseId: string, added: Added, at: string): Promise<boolean> {
  const summary = await docs.get<ExerciseSummaryDoc>(EXERCISE_SUMMARIES, athleteId, exerciseId);
  if (!summary || summary.last_done_at === null || added.ended_at <= summary.last_done_at) return false;
  const next = await write(docs, athleteId, exerciseId, added, { after: summary.best, holders: summary.holders }, at);
  await docs.upsert(EXERCISE_SUMMARIES, athleteId, {
    ...summary,
    session_count: summary.session_count + 1,
    last_done_at: added.ended_at,
    best: next.after,
    holders: next.holders,
    computed_at: at,
  } satisfies ExerciseSummaryDoc);
  return true;
}

type Position = { ended_at: string; workout_id: string };
/** A workout's entry for one exercise, before it is labelled. */
type Added = Position & Pick<RecordEntryDoc, 'sets' | 'local_basis' | 'local_date'>;
const isBefore = (a: Position, b: Position) => a.ended_at < b.ended_at || (a.ended_at === b.ended_at && a.workout_id < b.workout_id);

/**
 * Walks an exercise's entries from `from` on, in completion order, re-labelling them. It may stop
 * at an entry that is already right only once it is past both where the workout now stands and
 * where it stood before: entries after the old place were labelled with the old sets counted.
 */
async function relabel(
  docs: Documents,
  athleteId: string,
  exerciseId: string,
  from: string,
  added: Added | null,
  removed: Position | null,
  at: string,
): Promise<void> {
  const before = await docs.page<RecordEntryDoc>(RECORD_INDICATORS, {
    partition: athleteId,
    index: BY_EXERCISE,
    prefix: [exerciseId],
    direction: 'desc',
    after: [from, ''],
    limit: 1,
  });
  let prior: Standing = before[0] ?? NO_STANDING;
  let pending = added;
  let after: KeyValue[] = [from, ''];
  for (;;) {
    const page = await docs.page<RecordEntryDoc>(RECORD_INDICATORS, {
      partition: athleteId,
      index: BY_EXERCISE,
      prefix: [exerciseId],
      direction: 'asc',
      after,
      limit: 200,
    });
    for (const entry of page) {
      if (pending && isBefore(pending, entry)) {
        prior = await write(docs, athleteId, exerciseId, pending, prior, at);
        pending = null;
      }
      const next = label(entry, prior);
      const unchanged =
        same(next.labels, entry.labels) && next.sample_count === entry.sample_count && same(next.after, entry.after) && same(next.holders, entry.holders);
      if (unchanged && !pending && (removed === null || isBefore(removed, entry))) return;
      if (!unchanged) await docs.upsert(RECORD_INDICATORS, athleteId, { ...entry, ...next, computed_at: at });
      prior = next;
    }
    if (page.length < 200) break;
    const last = page[page.length - 1]!;
    after = [last.ended_at, last.workout_id];
  }
  if (pending) await write(docs, athleteId, exerciseId, pending, prior, at);
}

async function write(docs: Documents, athleteId: string, exerciseId: string, entry: Added, prior: Standing, at: string): Promise<Standing> {
  const next = label(entry, prior);
  await docs.upsert(RECORD_INDICATORS, athleteId, {
    id: `${entry.workout_id}:${exerciseId}`,
    exercise_id: exerciseId,
    workout_id: entry.workout_id,
    ended_at: entry.ended_at,
    local_basis: entry.local_basis,
    local_date: entry.local_date,
    sets: entry.sets,
    ...next,
    computed_at: at,
  } satisfies RecordEntryDoc);
  return next;
}
