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

/** Reads and writes of documents. Writes inside `transaction` commit together. */
export interface Documents {
  get<T extends Doc>(collection: string, partition: string, id: string): Promise<T | null>;
  getMany<T extends Doc>(collection: string, partition: string, ids: string[]): Promise<T[]>;
  upsert(collection: string, partition: string, doc: Doc): Promise<void>;
  delete(collection: string, partition: string, id: string): Promise<void>;
  /** Deletes every document of a partition matching the index prefix. Returns how many. */
  deleteWhere(collection: string, partition: string, index: string, prefix: KeyValue[]): Promise<number>;
  page<T extends Doc>(collection: string, query: PageQuery): Promise<T[]>;
  count(collection: string, partition?: string): Promise<number>;
}

/**
 * Collections being rebuilt beside the live ones. Writes go to the fresh copies until `swap`,
 * which replaces the live collections with them; `discard` drops them.
 */
export interface Rebuild {
  /** Reads and writes the fresh collections (and the live ones not being rebuilt), in batches. */
  transaction<T>(work: (docs: Documents) => Promise<T>): Promise<T>;
  /** Makes the fresh collections live; `inSwap` runs in the same transaction where the engine has one. */
  swap(inSwap?: (live: Documents) => Promise<void>): Promise<void>;
  discard(): Promise<void>;
}

export interface ReadStore extends Documents {
  readonly engine: string;
  /** Creates missing collections and indexes. Idempotent. */
  ensureCollections(specs: CollectionSpec[]): Promise<void>;
  transaction<T>(work: (docs: Documents) => Promise<T>): Promise<T>;
  beginRebuild(specs: CollectionSpec[]): Promise<Rebuild>;
  /** Every document of a collection, in id order within partition order: for comparisons and tests. */
  dump(collection: string): Promise<Array<{ partition: string; doc: Doc }>>;
  describe(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
