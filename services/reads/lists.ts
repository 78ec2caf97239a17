// A windowed, keyset-paged list over one index of a read model: what every Agent Access list that
// takes from/to shares. The caller maps documents to wire items and names the keyset fields.
import type { KeyObject } from 'node:crypto';
import type { ListQuery } from '../../contracts/agent-access.ts';
import { decodeCursor, encodeCursor } from '../api/cursor.ts';
import { ApiError } from '../api/errors.ts';
import type { Caller } from '../api/auth.ts';
import type { Doc, KeyValue, PageQuery, ReadStore } from '../store/read-store.ts';
import { resolveWindow, windowOfCursor, type Window } from './window.ts';

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
export function windowPageQuery(list: Pick<WindowedList<Doc>, 'index' | 'prefix'>, athleteId: string, window: Window, pageSize: number, after?: KeyValue[]): PageQuery {
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
  caller: Caller,
  query: ListQuery,
  now: Date,
  cursorKey: KeyObject,
  list: WindowedList<D>,
): Promise<{ window: Window; docs: D[]; next_cursor: string | null }> {
  const athleteId = caller.athlete.athlete_id;
  const issued = query.cursor ? decodeCursor(cursorKey, { operation: list.operation, athleteId }, query.cursor) : null;
  for (const [k, v] of Object.entries(list.filters ?? {})) {
    if (issued && issued.filters[k] !== v) throw new ApiError('invalid_input', `cursor: it was issued for another ${k}`);
  }
  const window = issued ? windowOfCursor(query, issued.filters) : resolveWindow(query, caller.athlete.profile.timezone, now);
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
