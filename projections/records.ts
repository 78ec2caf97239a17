// Record indicators per workout and exercise (historical-record-at-completion.v1). Each entry
// keeps the best values after it, so a new workout needs only the entry before it; a workout
// changed or added in the past re-labels the later entries of its exercises until they agree
// with what is stored again.
import type { RecordItem, WorkoutSet } from '../contracts/record.ts';
import { NO_BEST, recordsOf, type Best, type Indicator } from '../services/domain/records.ts';
import type { Doc, Documents, KeyValue } from '../services/store/read-store.ts';
import { athleteOf, changedAt, type Projection } from './projection.ts';

export const RECORD_INDICATORS = 'record_indicators';
const BY_EXERCISE = 'by_exercise';
const BY_WORKOUT = 'by_workout';

export interface RecordEntryDoc extends Doc {
  exercise_id: string;
  workout_id: string;
  ended_at: string;
  /** The exercise's sets in workout order, each with where it stands in the workout. */
  sets: Array<WorkoutSet & { exercise_order: number }>;
  /** Labels by `<exercise_order>:<position>`. */
  labels: Record<string, Indicator[]>;
  sample_count: number;
  after: Best;
  computed_at: string;
}

export const setKey = (exerciseOrder: number, position: number) => `${exerciseOrder}:${position}`;

/** One workout's entries, an exercise listed twice in the workout being one entry. */
function entriesOf(w: RecordItem<'workout'>): Map<string, RecordEntryDoc['sets']> {
  const out = new Map<string, RecordEntryDoc['sets']>();
  for (const e of [...w.exercises].sort((a, b) => a.exercise_order - b.exercise_order)) {
    out.set(e.exercise_id, [...(out.get(e.exercise_id) ?? []), ...e.sets.map((s) => ({ ...s, exercise_order: e.exercise_order }))]);
  }
  return out;
}

/** Labels of an entry given the best before it; sets are renumbered so positions are unique. */
function label(sets: RecordEntryDoc['sets'], prior: Best) {
  const index = new Map(sets.map((s, i) => [setKey(s.exercise_order, s.position), i]));
  const renumbered = sets.map((s, i) => ({
    ...s,
    position: i,
    parent_position: s.parent_position === null ? null : (index.get(setKey(s.exercise_order, s.parent_position)) ?? null),
  }));
  const r = recordsOf(renumbered, prior);
  const labels: Record<string, Indicator[]> = {};
  for (const [i, l] of Object.entries(r.labels)) {
    const s = sets[Number(i)]!;
    labels[setKey(s.exercise_order, s.position)] = l;
  }
  return { labels, sample_count: r.sampleCount, after: r.after };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const recordsProjection: Projection = {
  name: 'record_indicators',
  collections: [
    {
      name: RECORD_INDICATORS,
      indexes: [
        { name: BY_EXERCISE, fields: ['exercise_id', 'ended_at', 'workout_id'] },
        { name: BY_WORKOUT, fields: ['workout_id', 'id'] },
      ],
    },
  ],
  handles: (type) => type.startsWith('workout.'),
  async apply(event, docs) {
    const athleteId = athleteOf(event);
    const at = changedAt(event);
    const data = event.data as { item?: RecordItem<'workout'>; id?: string };
    const workoutId = data.item?.id ?? data.id!;
    const old = await docs.page<RecordEntryDoc>(RECORD_INDICATORS, { partition: athleteId, index: BY_WORKOUT, prefix: [workoutId], direction: 'asc', limit: 500 });
    await docs.deleteWhere(RECORD_INDICATORS, athleteId, BY_WORKOUT, [workoutId]);
    const fresh = data.item ? entriesOf(data.item) : new Map<string, RecordEntryDoc['sets']>();
    const exercises = new Set([...old.map((d) => d.exercise_id), ...fresh.keys()]);
    for (const exerciseId of exercises) {
      const sets = fresh.get(exerciseId);
      const added = sets && data.item ? { ended_at: data.item.ended_at, workout_id: workoutId, sets } : null;
      const removedAt = old.find((d) => d.exercise_id === exerciseId)?.ended_at ?? null;
      const from = [added?.ended_at, removedAt].filter((x): x is string => !!x).sort()[0]!;
      const removed = removedAt === null ? null : { ended_at: removedAt, workout_id: workoutId };
      await relabel(docs, athleteId, exerciseId, from, added, removed, at);
    }
  },
};

type Position = { ended_at: string; workout_id: string };
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
  added: (Position & { sets: RecordEntryDoc['sets'] }) | null,
  removed: Position | null,
  at: string,
): Promise<void> {
  const before = await docs.page<RecordEntryDoc>(RECORD_INDICATORS, { partition: athleteId, index: BY_EXERCISE, prefix: [exerciseId], direction: 'desc', after: [from, ''], limit: 1 });
  let prior = before[0]?.after ?? NO_BEST;
  let pending = added;
  let after: KeyValue[] = [from, ''];
  for (;;) {
    const page = await docs.page<RecordEntryDoc>(RECORD_INDICATORS, { partition: athleteId, index: BY_EXERCISE, prefix: [exerciseId], direction: 'asc', after, limit: 200 });
    for (const entry of page) {
      if (pending && isBefore(pending, entry)) {
        prior = await write(docs, athleteId, exerciseId, pending, prior, at);
        pending = null;
      }
      const next = label(entry.sets, prior);
      const unchanged = same(next.labels, entry.labels) && next.sample_count === entry.sample_count && same(next.after, entry.after);
      if (unchanged && !pending && (removed === null || isBefore(removed, entry))) return;
      if (!unchanged) await docs.upsert(RECORD_INDICATORS, athleteId, { ...entry, ...next, computed_at: at });
      prior = next.after;
    }
    if (page.length < 200) break;
    const last = page[page.length - 1]!;
    after = [last.ended_at, last.workout_id];
  }
  if (pending) await write(docs, athleteId, exerciseId, pending, prior, at);
}

async function write(
  docs: Documents,
  athleteId: string,
  exerciseId: string,
  entry: { ended_at: string; workout_id: string; sets: RecordEntryDoc['sets'] },
  prior: Best,
  at: string,
): Promise<Best> {
  const next = label(entry.sets, prior);
  await docs.upsert(RECORD_INDICATORS, athleteId, {
    id: `${entry.workout_id}:${exerciseId}`,
    exercise_id: exerciseId,
    workout_id: entry.workout_id,
    ended_at: entry.ended_at,
    sets: entry.sets,
    ...next,
    computed_at: at,
  } satisfies RecordEntryDoc);
  return next.after;
}
