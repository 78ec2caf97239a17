// A projection turns events into read-model documents. It owns its collections; the only
// collection it may read besides its own is `athletes` (for the record timezone), which the
// runner always updates first, so a replay and the incremental build see the same timezone.
import { localDateOf } from '../services/domain/time.ts';
import type { StoredEvent } from '../services/store/event-store.ts';
import type { CollectionSpec, Doc, Documents, KeyValue } from '../services/store/read-store.ts';

export interface Projection {
  name: string;
  /** Raised when what the projection writes changes: stores built by an older version are replayed at start. */
  version?: number;
  collections: CollectionSpec[];
  /** Event types this projection reads; other events only move its checkpoint. */
  handles(type: string): boolean;
  /**
   * `docs` is the batch's buffer (batch-documents.ts): a document read from it is frozen and the
   * same object for the rest of the batch, so a change is always a new document written.
   */
  apply(event: StoredEvent, docs: Documents): Promise<void>;
}

/** Whose event this is: from its metadata, or (events written before the metadata said) its stream's name. */
export function athleteOf(event: StoredEvent): string {
  const named = event.metadata.athlete_id;
  if (typeof named === 'string') return named;
  return event.stream.slice(event.stream.indexOf('-') + 1);
}

export function occurredAt(event: StoredEvent): string {
  return String(event.metadata.occurred_at);
}

/**
 * When the item an event creates was first created: the event's own time, unless it brings back
 * an item deleted before (an undo), which keeps the time it was first created.
 */
export function firstCreatedAt(event: StoredEvent): string {
  const kept = (event.data as { created_at?: unknown }).created_at;
  return typeof kept === 'string' ? kept : occurredAt(event);
}

/**
 * When the item an event writes was last changed: the event's own time, unless the item was
 * carried over from a RepLedger export, which brings the time of its last change there.
 */
export function changedAt(event: StoredEvent): string {
  const kept = (event.data as { updated_at?: unknown }).updated_at;
  return typeof kept === 'string' ? kept : occurredAt(event);
}

/** Visits every document of a partition in index order, a page at a time. */
export async function forEachDoc<T extends Doc>(
  docs: Documents,
  collection: string,
  partition: string,
  index: { name: string; fields: string[] },
  visit: (doc: T) => Promise<void>,
): Promise<void> {
  let after: KeyValue[] | undefined;
  for (;;) {
    const page = await docs.page<T>(collection, { partition, index: index.name, direction: 'asc', limit: 500, ...(after ? { after } : {}) });
    for (const doc of page) await visit(doc);
    if (page.length < 500) return;
    const last = page[page.length - 1]! as Record<string, unknown>;
    after = index.fields.map((f) => last[f] as KeyValue);
  }
}

/** The index `rebucketLocalDates` walks; every collection with local dates has it. */
export const BY_ID = { name: 'by_id', fields: ['id'] };

/**
 * After a timezone change, moves each document's `local_date` to the local date of its basis
 * instant. The collection needs a `by_id` index.
 */
export async function rebucketLocalDates<T extends Doc & { local_date: string }>(
  docs: Documents,
  collection: string,
  athleteId: string,
  timezone: string,
  basis: (doc: T) => string,
): Promise<void> {
  await forEachDoc<T>(docs, collection, athleteId, BY_ID, async (doc) => {
    const local = localDateOf(basis(doc), timezone);
    if (local !== doc.local_date) await docs.upsert(collection, athleteId, { ...doc, local_date: local });
  });
}

/**
 * Deletes every document of an athlete in these collections, wherever each keeps them: an
 * account's deletion, and every projection reaching its `account.deleted` (./runner.ts).
 */
export async function forgetAthlete(docs: Documents, collections: readonly CollectionSpec[], athleteId: string): Promise<void> {
  for (const c of collections) await docs.deleteOwned(c.name, athleteId, c.owner ?? 'athlete_id');
}
