// What the athlete's pages read: the same read models, through the same functions where Agent
// Access has one (the snapshot, a workout, a routine), so that a page and an AI client reading
// the same record see the same numbers. Lists here page through the whole history rather than a
// 90-day window, newest first, with a keyset in the address (one store read per page).
import type { Doc, KeyValue, ReadStore } from '../store/read-store.ts';

/** Where a page of a list starts: after `key`, towards older items or newer ones. */
export interface PagePosition {
  towards: 'older' | 'newer';
  key: KeyValue[];
}

const MAX_KEY_TEXT = 400;

/** The position a page address names (`?older=…` or `?newer=…`), or null for the first page. */
export function positionOf(query: unknown, fields: number): PagePosition | null {
  const q = (query ?? {}) as Record<string, unknown>;
  for (const towards of ['older', 'newer'] as const) {
    const value = q[towards];
    if (typeof value !== 'string' || value.length > MAX_KEY_TEXT) continue;
    try {
      const key: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
      if (Array.isArray(key) && key.length === fields && key.every((k) => typeof k === 'string' && k.length <= 100)) return { towards, key };
    } catch {
      // Not one of ours: the first page.
    }
  }
  return null;
}

/** The address parameter of a position. */
export function positionParam(towards: PagePosition['towards'], key: KeyValue[]): string {
  return `${towards}=${Buffer.from(JSON.stringify(key)).toString('base64url')}`;
}

export interface KeysetPage<D> {
  docs: D[];
  /** The key after which older items follow, if any do. */
  older: KeyValue[] | null;
  /** The key after which newer items follow, if any do. */
  newer: KeyValue[] | null;
}

/**
 * One page of a list, newest first (or in index order, with `order: 'asc'`: `older` then means
 * further down the list), over an index whose fields (after any prefix) `keyOf` returns. One
 * store read, one document more than the page to tell whether more follow.
 */
export async function keysetPage<D extends Doc>(
  reads: ReadStore,
  collection: string,
  list: { partition: string; index: string; prefix?: KeyValue[]; keyOf: (doc: D) => KeyValue[]; limit: number; order?: 'asc' | 'desc' },
  position: PagePosition | null,
): Promise<KeysetPage<D>> {
  const base = { partition: list.partition, index: list.index, limit: list.limit + 1, ...(list.prefix ? { prefix: list.prefix } : {}) };
  const down = list.order ?? 'desc';
  const up = down === 'desc' ? 'asc' : 'desc';
  if (position?.towards === 'newer') {
    const rows = await reads.page<D>(collection, { ...base, direction: up, after: position.key });
    const docs = rows.slice(0, list.limit).reverse();
    return {
      docs,
      newer: rows.length > list.limit && docs[0] ? list.keyOf(docs[0]) : null,
      // Something older exists: the item the position was taken from.
      older: docs.length ? list.keyOf(docs[docs.length - 1]!) : null,
    };
  }
  const rows = await reads.page<D>(collection, { ...base, direction: down, ...(position ? { after: position.key } : {}) });
  const docs = rows.slice(0, list.limit);
  return {
    docs,
    older: rows.length > list.limit && docs.length ? list.keyOf(docs[docs.length - 1]!) : null,
    newer: position && docs[0] ? list.keyOf(docs[0]) : null,
  };
}
