// The documents of one batch apply, kept in memory until the batch is done. Projections read and
// rewrite the same few documents for every event of a batch (an import of 450 workouts read the
// athlete's timezone 1,350 times and rewrote each exercise's summary once per workout: 10,221
// writes for 7,000 documents), and each of those was a statement. Here a document is read once
// and written once per batch, whatever the store.
//
// Writes are held back until `flush`, or until a query that could see them runs on their
// collection (a page, a count, a deleteWhere), so every read sees the batch's own writes as the
// store would. All of it happens inside the caller's transaction: nothing is visible earlier or
// lost on a rollback that would not have been without the buffer.
import type { Doc, Documents, DocumentWrite, KeyValue, PageQuery } from '../services/store/read-store.ts';

/** A collection as the batch knows it: documents by `partition\0id` (null: none), and the keys the store has yet to be told of. */
interface Known {
  docs: Map<string, Doc | null>;
  dirty: Set<string>;
}

/** Held-back writes flushed at this many, and the documents the batch knows then forgotten, so that a very large batch does not hold every document it touched. */
const MAX_DIRTY = 2000;

/**
 * A document read from the store is handed out as the same object for the rest of the batch, so
 * it is frozen: a projection that changed one in place would change what later events read. (A
 * document a projection writes is kept as given, not frozen: it may share objects with the event,
 * which are not the buffer's to freeze. Projections build a new document for every write.)
 */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class BatchDocuments implements Documents {
  readonly #store: Documents;
  readonly #maxDirty: number;
  readonly #known = new Map<string, Known>();
  #dirty = 0;

  constructor(store: Documents, maxDirty = MAX_DIRTY) {
    this.#store = store;
    this.#maxDirty = maxDirty;
  }

  #collection(collection: string): Known {
    let known = this.#known.get(collection);
    if (!known) this.#known.set(collection, (known = { docs: new Map(), dirty: new Set() }));
    return known;
  }

  async get<T extends Doc>(collection: string, partition: string, id: string): Promise<T | null> {
    const { docs } = this.#collection(collection);
    const key = `${partition}\0${id}`;
    const known = docs.get(key);
    if (known !== undefined) return known as T | null;
    const doc = deepFreeze(await this.#store.get<T>(collection, partition, id));
    docs.set(key, doc);
    return doc;
  }

  async getMany<T extends Doc>(collection: string, partition: string, ids: string[]): Promise<T[]> {
    const { docs } = this.#collection(collection);
    const missing = [...new Set(ids.filter((id) => !docs.has(`${partition}\0${id}`)))];
    const read = new Map((await this.#store.getMany<T>(collection, partition, missing)).map((d) => [d.id, deepFreeze(d)]));
    for (const id of missing) docs.set(`${partition}\0${id}`, read.get(id) ?? null);
    return ids.flatMap((id) => {
      const doc = docs.get(`${partition}\0${id}`);
      return doc ? [doc as T] : [];
    });
  }

  async upsert(collection: string, partition: string, doc: Doc): Promise<void> {
    await this.#hold(collection, partition, doc.id, doc);
  }

  async delete(collection: string, partition: string, id: string): Promise<void> {
    await this.#hold(collection, partition, id, null);
  }

  async deleteWhere(collection: string, partition: string, index: string, prefix: KeyValue[]): Promise<number> {
    await this.#flushCollection(collection);
    // Which documents it deletes is the store's to know: forget the collection's.
    this.#known.delete(collection);
    return this.#store.deleteWhere(collection, partition, index, prefix);
  }

  async deleteOwned(collection: string, owner: string, field?: string): Promise<number> {
    await this.#flushCollection(collection);
    this.#known.delete(collection);
    return this.#store.deleteOwned(collection, owner, field);
  }

  async page<T extends Doc>(collection: string, query: PageQuery): Promise<T[]> {
    await this.#flushCollection(collection);
    return this.#store.page<T>(collection, query);
  }

  async count(collection: string, partition?: string): Promise<number> {
    await this.#flushCollection(collection);
    return this.#store.count(collection, partition);
  }

  /** Writes every held-back change to the store. */
  async flush(): Promise<void> {
    for (const collection of this.#known.keys()) await this.#flushCollection(collection);
  }

  async #hold(collection: string, partition: string, id: string, doc: Doc | null): Promise<void> {
    const known = this.#collection(collection);
    const key = `${partition}\0${id}`;
    known.docs.set(key, doc);
    if (known.dirty.has(key)) return;
    known.dirty.add(key);
    if (++this.#dirty < this.#maxDirty) return;
    await this.flush();
    // The store holds all of it now: what the batch remembers can go, and is read again if asked for.
    this.#known.clear();
  }

  async #flushCollection(collection: string): Promise<void> {
    const known = this.#known.get(collection);
    if (!known || known.dirty.size === 0) return;
    const writes: DocumentWrite[] = [...known.dirty].map((key) => {
      const partition = key.slice(0, key.indexOf('\0'));
      const doc = known.docs.get(key)!;
      return doc ? { partition, doc } : { partition, deleted: key.slice(partition.length + 1) };
    });
    if (this.#store.writeMany) await this.#store.writeMany(collection, writes);
    else
      for (const w of writes) await ('doc' in w ? this.#store.upsert(collection, w.partition, w.doc) : this.#store.delete(collection, w.partition, w.deleted));
    this.#dirty -= known.dirty.size;
    known.dirty.clear();
  }
}

/** Runs `work` on a batch buffer over `docs` and writes what it held back. */
export async function inBatch<T>(docs: Documents, work: (batch: Documents) => Promise<T>): Promise<T> {
  const batch = new BatchDocuments(docs);
  const result = await work(batch);
  await batch.flush();
  return result;
}
