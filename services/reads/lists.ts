// Keyset-paged lists over one index of a read model: `keysetPage` for a whole collection newest
// first (saved routines, the Read API's lists), `windowedPage` for the Agent Access lists that take
// from/to. The caller maps documents to wire items and names the keyset fields.
import type { KeyObject } from 'node:crypto';
import type { ListQuery } from '../../contracts/agent-access.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { DomainError } from '../domain/errors.ts';
import type { RecordOwner } from './owner.ts';
import type { Doc, KeyValue, PageQuery, ReadStore } from '../store/read-store.ts';
import { resolveWindow, windowOfCursor, type Window } from './window.ts';

export interface KeysetList<D extends Doc> {
  /** The operation the cursor is bound to, with the athlete. */
  operation: string;
  collection: string;
  index: string;
  /** The index values of a document, for the keyset; the last must be unique (the id). */
  keyOf: (doc: D) => KeyValue[];
}

/**
 * A page of `query.limit` documents of the athlete's partition in the index's descending order,
 * after the position of the cursor if one is given, and the cursor of the page after it (null on
 * the last). Keyset paging: a document added or removed elsewhere in the order moves no other
 * document across a page boundary, so every document present throughout is visited exactly once.
 */
export async function keysetPage<D extends Doc>(
  reads: ReadStore,
  athleteId: string,
  query: { limit: number; cursor: string | null },
  cursorKey: KeyObject,
  list: KeysetList<D>,
): Promise<{ docs: D[]; next_cursor: string | null }> {
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: list.operation, athleteId }, query.cursor) : null;
  // One more than the page tells whether another follows.
  const docs = await reads.page<D>(list.collection, {
    partition: athleteId,
    index: list.index,
    direction: 'desc',
    limit: query.limit + 1,
    ...(issued ? { after: issued.after } : {}),
  });
  const page = docs.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    docs: page,
    next_cursor: docs.length > query.limit && last ? encodeCursor(cursorKey, { operation: list.operation, athleteId, filters: {} }, list.keyOf(last)) : null,
  };
}

export interface WindowedList<D extends Doc> {
  operation: string;
  collection: string;
  /** An index whose first field (after any prefix) is the local date. */
  index: string;
  prefix?: KeyValue[];
  /** The index values after the prefix, for the keyset. */
  keyOf: (doc: D) => KeyValue[];
  /** More filters the cursor must be bound to (a path id). */
  filters?: Record<string, string>;
}

/**
 * The read a windowed list makes for a page of `pageSize`: newest first within the window, after a
 * keyset position if given, and one document more than the page, which tells whether another follows.
 */
export function windowPageQuery(
  list: Pick<WindowedList<Doc>, 'index' | 'prefix'>,
  athleteId: string,
  window: Window,
  pageSize: number,
  after?: KeyValue[],
): PageQuery {
  return {
    partition: athleteId,
    index: list.index,
    ...(list.prefix ? { prefix: list.prefix } : {}),
    direction: 'desc',
    range: { gte: window.from, lte: window.to },
    limit: pageSize + 1,
    ...(after ? { after } : {}),
  };
}

export async function windowedPage<D extends Doc>(
  reads: ReadStore,
  owner: RecordOwner,
  query: ListQuery,
  now: Date,
  cursorKey: KeyObject,
  list: WindowedList<D>,
): Promise<{ window: Window; docs: D[]; next_cursor: string | null }> {
  const athleteId = owner.athleteId;
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: list.operation, athleteId }, query.cursor) : null;
  for (const [k, v] of Object.entries(list.filters ?? {})) {
    if (issued && issued.filters[k] !== v) throw new DomainError('invalid_input', `cursor: it was issued for another ${k}`);
  }
  const window = issued ? windowOfCursor(query, issued.filters) : resolveWindow(query, owner.timezone, now);
  const docs = await reads.page<D>(list.collection, windowPageQuery(list, athleteId, window, query.limit, issued?.after));
  const page = docs.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    window,
    docs: page,
    next_cursor:
      docs.length > query.limit && last
        ? encodeCursor(cursorKey, { operation: list.operation, athleteId, filters: { ...window, ...list.filters } }, list.keyOf(last))
        : null,
  };
}
