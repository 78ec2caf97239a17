// The read store port: a small document store for projections' read models.
// Adapters: embedded SQLite (default) and MongoDB.

export type KeyValue = string | number | boolean | null;

/** A keyset index: documents of one partition ordered by these fields; the last should be unique. */
export interface IndexSpec {
  name: string;
  fields: string[];
}

export interface CollectionSpec {
  name: string;
  indexes: IndexSpec[];
  /**
   * The field naming the athlete a document belongs to, for documents kept outside that athlete's
   * partition (default `athlete_id`): how an account's deletion finds them.
   */
  owner?: string;
}

/** A stored document. `id` is unique within its partition (an athlete id, or a fixed name). */
export interface Doc {
  id: string;
  [field: string]: unknown;
}

export interface PageQuery {
  partition: string;
  index: string;
  direction: 'asc' | 'desc';
  limit: number;
  /** Equality on the leading fields of the index. */
  prefix?: KeyValue[];
  /** Bounds (inclusive) on the first index field after the prefix. */
  range?: { gte?: KeyValue; lte?: KeyValue };
  /** Keyset: the index values (all fields after the prefix) of the last document already seen. */
  after?: KeyValue[];
}

/**
 * Every document a keyset query reaches, a page of `query.limit` at a time, whatever the adapter:
 * `keyOf` gives a document's index values after the prefix, where the next page starts (`after`
 * for the first). A caller that has enough stops; nothing more is read.
 */
export async function* pagesOf<T extends Doc>(
  docs: Pick<Documents, 'page'>,
  collection: string,
  query: Omit<PageQuery, 'after'>,
  keyOf: (doc: T) => KeyValue[],
  after?: KeyValue[],
): AsyncGenerator<T[]> {
  for (;;) {
    const page = await docs.page<T>(collection, { ...query, ...(after && { after }) });
    if (page.length > 0) yield page;
    if (page.length < query.limit) return;
    after = keyOf(page[page.length - 1]!);
  }
}

/** One write of `writeMany`: a document to store, or the id of one to delete. */
export type DocumentWrite = { partition: string; doc: Doc } | { partition: string; deleted: string };

/** Reads and writes of documents. Writes inside `transaction` commit together. */
export interface Documents {
  get<T extends Doc>(collection: string, partition: string, id: string): Promise<T | null>;
  getMany<T extends Doc>(collection: string, partition: string, ids: string[]): Promise<T[]>;
  upsert(collection: string, partition: string, doc: Doc): Promise<void>;
  delete(collection: string, partition: string, id: string): Promise<void>;
  /**
   * Several upserts and deletes of one collection, in order, in one round trip where the store is
   * across a network (MongoDB's bulkWrite). Absent where each write is a local statement anyway
   * (SQLite): then they are made one by one.
   */
  writeMany?(collection: string, writes: DocumentWrite[]): Promise<void>;
  /** Deletes every document of a partition matching the index prefix. Returns how many. */
  deleteWhere(collection: string, partition: string, index: string, prefix: KeyValue[]): Promise<number>;
  page<T extends Doc>(collection: string, query: PageQuery): Promise<T[]>;
  count(collection: string, partition?: string): Promise<number>;
  /**
   * Deletes every document of `owner` (an athlete id) in a collection: those in the partition named
   * `owner` and, when `field` (a dotted path into the document) is given, those in any partition
   * whose `field` equals `owner`. For an account's deletion (services/identity/account-deletion.ts,
   * and projections reaching its `account.deleted`), which must find an athlete's documents
   * wherever a collection keeps them; it needs no index (it is rare, and may read the whole
   * collection). Returns how many it deleted.
   */
  deleteOwned(collection: string, owner: string, field?: string): Promise<number>;
}

/**
 * Collections being rebuilt beside the live ones. Writes go to the fresh copies until `swap`,
 * which replaces the live collections with them; `discard` drops them.
 *
 * A rebuild follows the event log: each batch says the log position it brings the fresh
 * collections to, and that position is kept with them (inside them, where the swap is not one
 * transaction), so that whatever finishes the swap, now or after a crash, knows where they stand.
 */
export interface Rebuild {
  /**
   * Reads and writes the fresh collections (and the live ones not being rebuilt) in one
   * transaction, which also records `position` as how far the fresh collections have got. `work`
   * may run more than once (a transient conflict retries it): it must only touch state through `docs`.
   */
  transaction<T>(work: (docs: Documents) => Promise<T>, position: number): Promise<T>;
  /**
   * Makes the fresh collections live, then runs `finish` in a transaction against the live store
   * with the position they were rebuilt to (0 if no batch ran). Where the engine cannot swap
   * inside that transaction (MongoDB), `finish` may run more than once, each time from that stored
   * position; if it cannot commit, the rebuild is left for `finishInterruptedSwaps`.
   */
  swap(finish?: (live: Documents, from: number) => Promise<void>): Promise<void>;
  /** Drops the fresh collections; after a swap that began and failed, leaves it to be finished. */
  discard(): Promise<void>;
}

/** What a rebuild is for, kept with it so that a later process can finish its swap. */
export type RebuildLabel = Record<string, string | number>;

/** Finishes a swap that another process began: `from` is where the swapped-in collections stand. */
export type FinishSwap = (live: Documents, from: number, label: RebuildLabel) => Promise<void>;

export interface ReadStore extends Documents {
  readonly engine: string;
  /** Creates missing collections and indexes. Idempotent. */
  ensureCollections(specs: CollectionSpec[]): Promise<void>;
  /** Drops collections with everything in them, where they exist: ones no projection keeps any more. */
  dropCollections(names: string[]): Promise<void>;
  transaction<T>(work: (docs: Documents) => Promise<T>): Promise<T>;
  /**
   * Starts a rebuild of these collections. Rebuilds whose process is gone (killed mid-replay)
   * are cleaned up when a store next ensures its collections.
   */
  beginRebuild(specs: CollectionSpec[], label?: RebuildLabel): Promise<Rebuild>;
  /**
   * Finishes swaps that a process began and did not finish (it died, or lost the database,
   * between making the fresh collections live and committing `finish`): completes them and runs
   * `finish` for each, with the position its collections carry and the label it was begun with.
   * Waits for a swap whose process is still at work. Returns how many it finished.
   */
  finishInterruptedSwaps(finish: FinishSwap): Promise<number>;
  /** Every document of a collection, in id order within partition order: for comparisons and tests. */
  dump(collection: string): Promise<Array<{ partition: string; doc: Doc }>>;
  describe(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
