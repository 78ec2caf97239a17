// Read models that hold one document per record item: the item as last saved, its revision,
// and when it was created and last changed. Kinds with instants also carry the local date in the
// record timezone, and move it when the athlete changes timezone.
import { recordChangeOf } from '../contracts/events.ts';
import { canonicalGoalTarget, type RecordItem, type RecordKind } from '../contracts/record.ts';
import { localDateOf } from '../services/domain/time.ts';
import type { StoredEvent } from '../services/store/event-store.ts';
import type { Doc, Documents, IndexSpec } from '../services/store/read-store.ts';
import { timezoneOf } from './athletes.ts';
import { athleteOf, BY_ID, changedAt, firstCreatedAt, rebucketLocalDates, type Projection } from './projection.ts';

export interface ItemDoc extends Doc {
  revision: number;
  created_at: string;
  updated_at: string;
}

interface ItemProjectionOptions<K extends RecordKind> {
  name: string;
  kind: K;
  indexes: IndexSpec[];
  /** Fields derived from the item, stored beside it. */
  derive?: (item: RecordItem<K>) => Record<string, unknown>;
  /** The instant whose local date the document carries as `local_date`. */
  instant?: (item: RecordItem<K>) => string;
}

export function itemProjection<K extends RecordKind>(o: ItemProjectionOptions<K>): Projection {
  const collection = o.name;
  return {
    name: o.name,
    collections: [{ name: collection, indexes: [BY_ID, ...o.indexes] }],
    handles: (type) => recordChangeOf(type)?.kind === o.kind || (o.instant !== undefined && type === 'athlete.profile_updated'),
    async apply(event, docs) {
      const athleteId = athleteOf(event);
      if (event.type === 'athlete.profile_updated') {
        const instant = o.instant!;
        await rebucketLocalDates<ItemDoc & RecordItem<K> & { local_date: string }>(docs, collection, athleteId, await timezoneOf(docs, athleteId), instant);
        return;
      }
      await applyItemChange(event, docs, collection, async (item: RecordItem<K>) => ({
        ...item,
        ...(o.derive ? o.derive(item) : {}),
        ...(o.instant ? { local_date: localDateOf(o.instant(item), await timezoneOf(docs, athleteId)) } : {}),
      }));
    },
  };
}

/** Upserts the document `shape` makes of the item, with its revision and timestamps, or deletes it. */
export async function applyItemChange<K extends RecordKind>(
  event: StoredEvent,
  docs: Documents,
  collection: string,
  shape: (item: RecordItem<K> & { id: string }) => Promise<Record<string, unknown>>,
): Promise<void> {
  const athleteId = athleteOf(event);
  const data = event.data as { item?: RecordItem<K> & { id: string }; id?: string; revision: number };
  if (!data.item) {
    await docs.delete(collection, athleteId, data.id!);
    return;
  }
  const at = changedAt(event);
  const previous = await docs.get<ItemDoc>(collection, athleteId, data.item.id);
  await docs.upsert(collection, athleteId, {
    ...(await shape(data.item)),
    id: data.item.id,
    revision: data.revision,
    created_at: previous?.created_at ?? firstCreatedAt(event),
    updated_at: at,
  });
}

/** The read-model collection of each kind of item (workouts have projections of their own: workouts.ts). */
export const ITEM_COLLECTIONS = {
  exercise: 'exercises',
  routine: 'routines',
  goal: 'goals',
  feedback: 'feedback',
  checkin: 'checkins',
  meal: 'meals',
  body_measurement: 'body_measurements',
  equipment_setup: 'equipment_setups',
  fitness_preferences: 'fitness_preferences',
} as const satisfies Record<Exclude<RecordKind, 'workout'>, string>;

export const itemProjections: Projection[] = [
  itemProjection({ name: ITEM_COLLECTIONS.exercise, kind: 'exercise', indexes: [{ name: 'by_name', fields: ['name', 'id'] }] }),
  itemProjection({
    name: ITEM_COLLECTIONS.routine,
    kind: 'routine',
    indexes: [{ name: 'by_updated', fields: ['updated_at', 'id'] }],
    derive: (r) => ({ exercise_count: r.exercises.length }),
  }),
  itemProjection({
    name: ITEM_COLLECTIONS.goal,
    kind: 'goal',
    indexes: [{ name: 'by_status', fields: ['status', 'updated_at', 'id'] }],
    derive: (g) => {
      const canonical = canonicalGoalTarget(g);
      return { canonical_target_value: canonical.value, canonical_target_unit: canonical.unit };
    },
  }),
  itemProjection({ name: ITEM_COLLECTIONS.feedback, kind: 'feedback', indexes: [{ name: 'by_recorded', fields: ['recorded_at', 'id'] }] }),
  itemProjection({ name: ITEM_COLLECTIONS.checkin, kind: 'checkin', indexes: [{ name: 'by_date', fields: ['date', 'id'] }] }),
  itemProjection({
    name: ITEM_COLLECTIONS.meal,
    kind: 'meal',
    indexes: [{ name: 'by_local_date', fields: ['local_date', 'eaten_at', 'id'] }],
    instant: (m) => m.eaten_at,
  }),
  itemProjection({
    name: ITEM_COLLECTIONS.body_measurement,
    kind: 'body_measurement',
    indexes: [
      { name: 'by_local_date', fields: ['local_date', 'measured_at', 'id'] },
      { name: 'by_metric', fields: ['metric', 'measured_at', 'id'] },
    ],
    instant: (b) => b.measured_at,
  }),
  itemProjection({ name: ITEM_COLLECTIONS.equipment_setup, kind: 'equipment_setup', indexes: [{ name: 'by_name', fields: ['name', 'id'] }] }),
  itemProjection({ name: ITEM_COLLECTIONS.fitness_preferences, kind: 'fitness_preferences', indexes: [] }),
];
