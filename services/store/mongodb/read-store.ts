// The read store port over MongoDB (the `mongodb` driver). Transactions need a replica set (a
// one-node replica set is enough; see docker-compose.yml).
//
// Each read-model collection is a MongoDB collection of the same name holding
// `{ _id: partition + '\u0000' + id, partition, doc }`: the document is stored untouched under
// `doc`, so reads return exactly what was upserted. Because `_id` sorts as (partition, id), the
// `_id` index gives `get`, `getMany` and `dump` their order. Each IndexSpec becomes a compound
// index `{ partition: 1, 'doc.<field>': 1, ... }` named after the spec.
//
// Replays rebuild collections beside the live ones and rename them over the live ones, which
// MongoDB cannot do inside a transaction. So that a replay interrupted anywhere leaves nothing
// inconsistent: every rebuild is recorded in `_rebuilds` (its collections, its process and a
// heartbeat), every rebuilt collection carries the log position it was rebuilt to in a marker
// document (`_id: 0`, no partition, so no read sees it), and the swap's last step (catching up
// and setting checkpoints) reads that position inside its own transaction and may be retried,
// by this process or, after a crash, by whichever process starts next.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type TransactionOptions,
} from 'mongodb';
import { processAlive } from '../process-alive.ts';
import type { CollectionSpec, Doc, Documents, DocumentWrite, FinishSwap, KeyValue, PageQuery, ReadStore, Rebuild, RebuildLabel } from '../read-store.ts';

const NAME = /^[a-z][a-z0-9_]*$/;
const FIELD = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/i;
const DEFAULT_DATABASE = 'repledger';

/** The registry of rebuilds; not a read-model name (those start with a letter). */
const REBUILDS = '_rebuilds';
const REBUILD_SUFFIX = '__rebuild_';
/** The `_id` of the marker that carries a rebuilt collection's position: documents' ids are strings. */
const MARK_ID = 0;
/** A rebuild's process renews its heartbeat this often, and is taken for dead when it is this old. */
const HEARTBEAT_MS = 10_000;
const STALE_MS = 60_000;
/** How often a start looks again at a swap that another live process is finishing. */
const SWAP_WAIT_MS = 500;

/** A rebuild as recorded in `_rebuilds`. */
interface RebuildRecord {
  _id: string; // the suffix of its collections
  collections: string[];
  label: RebuildLabel;
  /** The process at work on it; null once it gave up, so that any process may finish it. */
  owner: { host: string; pid: number } | null;
  heartbeat: Date;
  state: 'building' | 'swapping';
}

interface Marker {
  _id: typeof MARK_ID;
  position: number;
}

const me = () => ({ host: hostname(), pid: process.pid });

/** A rebuild nobody is at work on: released, silent for STALE_MS (by the server's clock), or its process on this host gone. */
const UNATTENDED: Document = {
  $or: [{ owner: null }, { $expr: { $lt: ['$heartbeat', { $subtract: ['$$NOW', STALE_MS] }] } }],
};
const ownerGone = (r: RebuildRecord) => r.owner !== null && r.owner.host === hostname() && r.owner.pid !== process.pid && !processAlive(r.owner.pid);

/** Documents only: the markers have no partition. */
const DOCUMENTS: Document = { partition: { $type: 'string' } };

/** MongoDB server error codes handled here. */
const INDEX_NOT_FOUND = 27;
const NAMESPACE_EXISTS = 48;
const INDEX_OPTIONS_CONFLICT = 85;
const INDEX_KEY_SPECS_CONFLICT = 86;

const TRANSACTION: TransactionOptions = {
  readConcern: { level: 'snapshot' },
  writeConcern: { w: 'majority' },
  readPreference: 'primary',
};

interface Stored {
  _id: string;
  partition: string;
  doc: Doc;
}

type Indexes = Map<string, Map<string, string[]>>;

function name(collection: string): string {
  if (!NAME.test(collection)) throw new Error(`invalid collection name: ${collection}`);
  return collection;
}

function path(field: string): string {
  if (!FIELD.test(field)) throw new Error(`invalid index field: ${field}`);
  return `doc.${field}`;
}

const keyOf = (partition: string, id: string) => `${partition}\u0000${id}`;

/** A JSON copy: the same values the SQLite adapter stores (no undefined, Dates as strings, …). */
const asJson = (doc: Doc): Doc => JSON.parse(JSON.stringify(doc)) as Doc;

/** Runs calls one after another: a MongoDB session does not support parallel operations. */
class Serial {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work, work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * Documents over one database, optionally bound to a session (a transaction). `route` maps a
 * collection name to its physical collection, so a rebuild writes into fresh collections.
 */
class MongoDocuments implements Documents {
  readonly #db: Db;
  readonly #route: (collection: string) => string;
  readonly #indexes: Indexes;
  readonly #session: ClientSession | undefined;
  readonly #serial = new Serial();

  constructor(db: Db, route: (collection: string) => string, indexes: Indexes, session?: ClientSession) {
    this.#db = db;
    this.#route = route;
    this.#indexes = indexes;
    this.#session = session;
  }

  async get<T extends Doc>(collection: string, partition: string, id: string): Promise<T | null> {
    const row = await this.#run(() => this.#coll(collection).findOne({ _id: keyOf(partition, id) }, { projection: { doc: 1 }, ...this.#opts() }));
    return row ? (row.doc as T) : null;
  }

  async getMany<T extends Doc>(collection: string, partition: string, ids: string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const rows = await this.#run(() =>
      this.#coll(collection)
        .find({ _id: { $in: [...new Set(ids)].map((id) => keyOf(partition, id)) } }, { projection: { doc: 1 }, ...this.#opts() })
        .toArray(),
    );
    const byId = new Map(rows.map((r) => [r.doc.id, r.doc as T]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }

  async upsert(collection: string, partition: string, doc: Doc): Promise<void> {
    const _id = keyOf(partition, doc.id);
    await this.#run(() => this.#coll(collection).replaceOne({ _id }, { partition, doc: asJson(doc) }, { upsert: true, ...this.#opts() }));
  }

  async delete(collection: string, partition: string, id: string): Promise<void> {
    await this.#run(() => this.#coll(collection).deleteOne({ _id: keyOf(partition, id) }, this.#opts()));
  }

  async writeMany(collection: string, writes: DocumentWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const operations: AnyBulkWriteOperation<Stored>[] = writes.map((w) =>
      'doc' in w
        ? { replaceOne: { filter: { _id: keyOf(w.partition, w.doc.id) }, replacement: { partition: w.partition, doc: asJson(w.doc) }, upsert: true } }
        : { deleteOne: { filter: { _id: keyOf(w.partition, w.deleted) } } },
    );
    // In order: a batch may delete a document and store it again.
    await this.#run(() => this.#coll(collection).bulkWrite(operations, { ordered: true, ...this.#opts() }));
  }

  async deleteWhere(collection: string, partition: string, index: string, prefix: KeyValue[]): Promise<number> {
    const fields = this.#fields(collection, index);
    if (prefix.length > fields.length) throw new Error(`prefix of ${index} is longer than the index`);
    const filter: Document = { partition };
    prefix.forEach((value, i) => (filter[path(fields[i]!)] = value));
    const result = await this.#run(() => this.#coll(collection).deleteMany(filter, this.#opts()));
    return result.deletedCount;
  }

  async deleteOwned(collection: string, owner: string, field?: string): Promise<number> {
    const filter: Document = field ? { $or: [{ partition: owner }, { [path(field)]: owner }] } : { partition: owner };
    const result = await this.#run(() => this.#coll(collection).deleteMany(filter, this.#opts()));
    return result.deletedCount;
  }

  async page<T extends Doc>(collection: string, q: PageQuery): Promise<T[]> {
    const fields = this.#fields(collection, q.index);
    const prefix = q.prefix ?? [];
    if (prefix.length >= fields.length) throw new Error(`prefix of ${q.index} is longer than the index`);
    if (q.limit <= 0) return []; // a MongoDB limit of 0 means "no limit"
    const rest = fields.slice(prefix.length);
    const filter: Document = { partition: q.partition };
    prefix.forEach((value, i) => (filter[path(fields[i]!)] = value));
    const range: Document = {};
    if (q.range?.gte !== undefined) range.$gte = q.range.gte;
    if (q.range?.lte !== undefined) range.$lte = q.range.lte;
    if (Object.keys(range).length) filter[path(rest[0]!)] = range;
    if (q.after) {
      if (q.after.length !== rest.length) throw new Error(`keyset of ${q.index} needs ${rest.length} values`);
      // (f1, f2, …, fn) > (v1, v2, …, vn) as a disjunction: f1 > v1, or f1 = v1 and f2 > v2, …
      // Null (or missing) sorts before every value, but $gt and $lt only compare values of one
      // type: "after null" ascending is $ne null, descending nothing; descending after a value,
      // null comes after it too. (Equality with null matches null and missing alike.)
      const after = q.after;
      const clauses = rest.flatMap((field, i) => {
        const equal: Document = {};
        for (let j = 0; j < i; j++) equal[path(rest[j]!)] = after[j];
        const value = after[i];
        const beyond: unknown[] = q.direction === 'asc' ? [value === null ? { $ne: null } : { $gt: value }] : value === null ? [] : [{ $lt: value }, null];
        return beyond.map((condition) => ({ ...equal, [path(field)]: condition }));
      });
      if (clauses.length === 0) return [];
      filter.$or = clauses;
    }
    const dir = q.direction === 'asc' ? 1 : -1;
    const sort = new Map<string, 1 | -1>([['partition', dir], ...fields.map((f): [string, 1 | -1] => [path(f), dir])]);
    const rows = await this.#run(() =>
      this.#coll(collection)
        .find(filter, { projection: { doc: 1 }, sort, limit: q.limit, ...this.#opts() })
        .toArray(),
    );
    return rows.map((r) => r.doc as T);
  }

  async count(collection: string, partition?: string): Promise<number> {
    return this.#run(() => this.#coll(collection).countDocuments(partition === undefined ? DOCUMENTS : { partition }, this.#opts()));
  }

  #coll(collection: string): Collection<Stored> {
    return this.#db.collection<Stored>(this.#route(name(collection)));
  }

  #opts(): { session?: ClientSession } {
    return this.#session ? { session: this.#session } : {};
  }

  #run<T>(work: () => Promise<T>): Promise<T> {
    return this.#session ? this.#serial.run(work) : work();
  }

  #fields(collection: string, index: string): string[] {
    const fields = this.#indexes.get(collection)?.get(index);
    if (!fields) throw new Error(`collection ${collection} has no index ${index}`);
    return fields;
  }
}

/** The part of a MongoDB collection that `ensureIndex` uses (a test stands in for it). */
export interface IndexedCollection {
  createIndex(key: Map<string, 1>, options: { name: string }): Promise<string>;
  /** Drops the index of this name, or of this key pattern (the server's `dropIndexes` takes either). */
  dropIndex(index: string | Document): Promise<unknown>;
  listIndexes(): { toArray(): Promise<Document[]> };
}

const sameKey = (a: Document, b: Map<string, 1>) => JSON.stringify(Object.entries(a)) === JSON.stringify([...b]);

const isCode = (error: unknown, ...codes: number[]) => error instanceof MongoServerError && codes.includes(Number(error.code));

/**
 * Creates the compound index `{ partition, doc.<field>... }` named `name`, replacing whatever
 * stands in its way after a release changed an index:
 * - 86 IndexKeySpecsConflict: an index of this name has other fields;
 * - 85 IndexOptionsConflict: an index with these fields exists under another name (a renamed
 *   index: "Index already exists with a different name"), or under this name with other options.
 * Both are resolved by dropping every index that has this name or this key, then creating it.
 *
 * Processes starting at once all do this on the same catalog, so each step allows for another
 * process having done it first: an index already dropped counts as dropped (27 IndexNotFound),
 * and a create that still conflicts is accepted when the index it wanted is there by then.
 */
export async function ensureIndex(coll: IndexedCollection, name: string, fields: string[]): Promise<void> {
  const key = new Map<string, 1>([['partition', 1], ...fields.map((f): [string, 1] => [path(f), 1])]);
  try {
    await coll.createIndex(key, { name });
    return;
  } catch (error) {
    if (!isCode(error, INDEX_OPTIONS_CONFLICT, INDEX_KEY_SPECS_CONFLICT)) throw error;
  }
  const existing = await coll.listIndexes().toArray();
  const inTheWay = existing.filter((ix) => ix.name !== '_id_' && (ix.name === name || sameKey(ix.key as Document, key)));
  for (const ix of inTheWay) {
    // An old index under the wanted name is dropped by its old key: by name, this could drop the
    // wanted index that another process created since the listing, and abort its build.
    const which = ix.name === name && !sameKey(ix.key as Document, key) ? (ix.key as Document) : String(ix.name);
    try {
      await coll.dropIndex(which);
    } catch (error) {
      if (!isCode(error, INDEX_NOT_FOUND)) throw error;
    }
  }
  try {
    await coll.createIndex(key, { name });
  } catch (error) {
    if (!isCode(error, INDEX_OPTIONS_CONFLICT, INDEX_KEY_SPECS_CONFLICT)) throw error;
    const now = await coll.listIndexes().toArray();
    if (!now.some((ix) => ix.name === name && sameKey(ix.key as Document, key))) throw error;
  }
}

/** The connection string without user:password. */
function redact(url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/?#]*@/i, '$1').replace(/([?&])(password|authMechanismProperties)=[^&]*/gi, '$1$2=***');
}

/**
 * Why the server that answered `hello` cannot run this store's transactions, or null if it can:
 * a replica set member (`setName`) or a mongos can; a standalone cannot, and would fail at the
 * projector's first transaction, over and over as it restarts. The reason names `url` without
 * its credentials.
 */
export function whyNoTransactions(hello: Document, url: string): string | null {
  if (typeof hello.setName === 'string' || hello.msg === 'isdbgrid') return null;
  const connection = redact(url);
  const initiate = "run rs.initiate() once (mongosh --eval 'rs.initiate()'; docker-compose.yml does it in the healthcheck)";
  // A member started with --replSet answers `isreplicaset: true` until the set is initiated.
  if (hello.isreplicaset === true) return `MongoDB at ${connection} was started with --replSet but its replica set is not initiated: ${initiate}.`;
  return (
    `MongoDB at ${connection} is a standalone server, and the read store's transactions need a replica set. ` +
    `A one-node replica set is enough: start mongod with --replSet rs0, then ${initiate}.`
  );
}

function databaseOf(url: string): string | null {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]+)/i.exec(url);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

export interface MongoReadStoreOptions {
  /** The database; defaults to the one in the connection string, else `repledger`. */
  database?: string;
}

export class MongoReadStore extends MongoDocuments implements ReadStore {
  readonly engine = 'mongodb';
  readonly #client: MongoClient;
  readonly #db: Db;
  readonly #indexes: Indexes;
  readonly #connection: string;

  /** Connects to `url`, e.g. `mongodb://mongodb:27017/repledger?replicaSet=rs0`. */
  static async connect(url: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    const client = new MongoClient(url);
    await client.connect();
    try {
      const refused = whyNoTransactions(await client.db().admin().command({ hello: 1 }), url);
      if (refused) throw new Error(refused);
    } catch (error) {
      await client.close();
      throw error;
    }
    return new MongoReadStore(client, options.database ?? databaseOf(url) ?? DEFAULT_DATABASE, redact(url));
  }

  constructor(client: MongoClient, database: string, connection = '(client)') {
    const indexes: Indexes = new Map();
    const db = client.db(database);
    super(db, (c) => c, indexes);
    this.#client = client;
    this.#db = db;
    this.#indexes = indexes;
    this.#connection = connection;
  }

  async ensureCollections(specs: CollectionSpec[]): Promise<void> {
    await this.#dropAbandonedRebuilds();
    for (const spec of specs) {
      this.#indexes.set(spec.name, new Map(spec.indexes.map((i) => [i.name, i.fields])));
      await this.#create(name(spec.name), spec);
    }
  }

  async dropCollections(names: string[]): Promise<void> {
    for (const collection of names) {
      this.#indexes.delete(collection);
      // The driver takes a collection that is not there as dropped already.
      await this.#db.collection(name(collection)).drop();
    }
  }

  /**
   * Runs `work` in one transaction (`withTransaction`). On a transient error (a write conflict
   * with another transaction, a primary step-down) the driver retries the whole transaction, so
   * `work` may run more than once: it must only touch state through `docs`.
   */
  transaction<T>(work: (docs: Documents) => Promise<T>): Promise<T> {
    return this.#transaction((c) => c, work);
  }

  async beginRebuild(specs: CollectionSpec[], label: RebuildLabel = {}): Promise<Rebuild> {
    // Each rebuild writes to collections of its own: two replays at once must not empty each other's.
    const id = randomBytes(4).toString('hex');
    const suffix = `${REBUILD_SUFFIX}${id}`;
    const collections = specs.map((s) => name(s.name));
    const names = new Set(collections);
    const registry = this.#registry();
    // Recorded before its collections exist: a clean-up never finds them unrecorded.
    await registry.updateOne(
      { _id: id },
      [{ $set: { collections: { $literal: collections }, label: { $literal: label }, owner: { $literal: me() }, state: 'building', heartbeat: '$$NOW' } }],
      { upsert: true },
    );
    // A beat that matches nothing (the record was taken for abandoned and removed) is not acted on
    // here: the next batch finds its marker gone, and the swap finds the record gone.
    const heartbeat = setInterval(() => {
      registry.updateOne({ _id: id, owner: me() }, [{ $set: { heartbeat: '$$NOW' } }]).catch(() => undefined);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    for (const spec of specs) {
      // A page on a rebuilt collection needs its index fields even before ensureCollections ran.
      if (!this.#indexes.has(spec.name)) this.#indexes.set(spec.name, new Map(spec.indexes.map((i) => [i.name, i.fields])));
      const fresh = spec.name + suffix;
      await this.#create(fresh, spec);
      await this.#db.collection<Marker>(fresh).updateOne({ _id: MARK_ID }, { $set: { position: 0 } }, { upsert: true });
    }
    // Collections not being rebuilt stay live, so a projection may still read and write them.
    const route = (c: string) => (names.has(c) ? c + suffix : c);
    let swapping = false;
    let done = false;
    const stop = () => clearInterval(heartbeat);
    return {
      transaction: (work, position) =>
        this.#transaction(route, async (docs, session) => {
          const result = await work(docs);
          for (const c of collections) {
            const marked = await this.#db.collection<Marker>(c + suffix).updateOne({ _id: MARK_ID }, { $set: { position } }, { session });
            // Its collections were dropped by another process's clean-up (the writes above made
            // them anew, empty): nothing this rebuild builds from here on can be swapped in.
            if (marked.matchedCount === 0) throw new Error(`rebuild ${id}: ${c}${suffix} lost its position marker; another process dropped it as abandoned`);
          }
          return result;
        }),
      swap: async (finish) => {
        const held = await registry.updateOne({ _id: id, owner: me(), state: 'building' }, { $set: { state: 'swapping' } });
        if (held.matchedCount === 0) {
          throw new Error(
            `rebuild ${id}: its record in ${REBUILDS} is gone or no longer this process's (another process took it for abandoned); not swapping it in`,
          );
        }
        // Only now may collections go live: discard releases the swap from here on instead of dropping.
        swapping = true;
        await this.#completeSwap({ _id: id, collections, label }, (live, from) => finish?.(live, from) ?? Promise.resolve());
        done = true;
        stop();
      },
      discard: async () => {
        stop();
        if (done) return;
        if (swapping) {
          // Some collections may be live already: finishing, not dropping, is what is left to do.
          // Released, so that the next start finishes it without waiting for the heartbeat to age;
          // only if still this process's: a process that took it over since must keep it.
          await registry.updateOne({ _id: id, owner: me() }, { $set: { owner: null } });
          return;
        }
        for (const c of collections) await this.#db.collection(c + suffix).drop();
        // Deleting nothing is fine: another process's clean-up removed the record already.
        await registry.deleteOne({ _id: id });
      },
    };
  }

  async finishInterruptedSwaps(finish: FinishSwap): Promise<number> {
    let finished = 0;
    for (;;) {
      const pending = await this.#registry().find({ state: 'swapping' }).toArray();
      if (pending.length === 0) return finished;
      let waiting = false;
      for (const record of pending) {
        const claim: Filter<RebuildRecord> = ownerGone(record) ? { _id: record._id, owner: record.owner } : { _id: record._id, ...UNATTENDED };
        const claimed = await this.#registry().findOneAndUpdate(claim, [{ $set: { owner: { $literal: me() }, heartbeat: '$$NOW' } }]);
        if (!claimed) {
          waiting = true; // its process is still at work on it
          continue;
        }
        await this.#completeSwap(claimed, (live, from) => finish(live, from, claimed.label));
        finished++;
      }
      if (waiting) await new Promise((resolve) => setTimeout(resolve, SWAP_WAIT_MS));
    }
  }

  /**
   * Renames whichever of a rebuild's collections are not live yet (all, the first time; the rest,
   * after a crash midway), then, in one transaction retried on transient errors, reads the
   * position they carry, runs `finish` from it, and removes the markers and the rebuild's record.
   */
  async #completeSwap(rebuild: Pick<RebuildRecord, '_id' | 'collections' | 'label'>, finish: (live: Documents, from: number) => Promise<void>): Promise<void> {
    const suffix = `${REBUILD_SUFFIX}${rebuild._id}`;
    const existing = new Set(
      (await this.#db.listCollections({ name: { $in: rebuild.collections.map((c) => c + suffix) } }, { nameOnly: true }).toArray()).map((c) => c.name),
    );
    for (const c of rebuild.collections) {
      if (existing.has(c + suffix)) await this.#db.collection(c + suffix).rename(c, { dropTarget: true });
    }
    await this.#transaction(
      (c) => c,
      async (live, session) => {
        // One operation at a time: a session does not run operations in parallel.
        let from = Number.POSITIVE_INFINITY;
        for (const c of rebuild.collections) {
          const mark = await this.#db.collection<Marker>(c).findOne({ _id: MARK_ID }, { session });
          if (!mark) throw new Error(`rebuild ${rebuild._id}: the swapped-in collection ${c} has lost its position marker`);
          from = Math.min(from, mark.position);
        }
        await finish(live, from === Number.POSITIVE_INFINITY ? 0 : from);
        for (const c of rebuild.collections) await this.#db.collection<Marker>(c).deleteOne({ _id: MARK_ID }, { session });
        // Whoever owns the record finishes the swap: a process whose claim was taken over (its
        // heartbeat aged) must roll back its `finish`, not commit it beside the new owner's.
        const removed = await this.#registry().deleteOne({ _id: rebuild._id, owner: me() }, { session });
        if (removed.deletedCount === 0) throw new Error(`rebuild ${rebuild._id}: another process has taken over its swap`);
      },
    );
  }

  /**
   * Drops the collections of rebuilds that no process is at work on and that never reached their
   * swap (killed mid-replay), and rebuild collections no rebuild records (left by releases before
   * the registry). Swaps that began are `finishInterruptedSwaps`'s: their collections may be live.
   */
  async #dropAbandonedRebuilds(): Promise<void> {
    // Collections first, records second: a rebuild begun in between is recorded before it creates any.
    const fresh = (await this.#db.listCollections({ name: { $regex: REBUILD_SUFFIX } }, { nameOnly: true }).toArray()).map((c) => c.name);
    const records = await this.#registry().find({}).toArray();
    const known = new Set(records.map((r) => r._id));
    for (const c of fresh) {
      const id = c.slice(c.lastIndexOf(REBUILD_SUFFIX) + REBUILD_SUFFIX.length);
      if (!known.has(id)) await this.#db.collection(c).drop();
    }
    for (const record of records.filter((r) => r.state === 'building')) {
      const claim: Filter<RebuildRecord> = ownerGone(record) ? { _id: record._id, owner: record.owner } : { _id: record._id, state: 'building', ...UNATTENDED };
      // Deleting the record claims it: of several processes starting at once, one drops.
      if ((await this.#registry().deleteOne(claim)).deletedCount === 0) continue;
      for (const c of record.collections) await this.#db.collection(c + REBUILD_SUFFIX + record._id).drop();
    }
  }

  #registry(): Collection<RebuildRecord> {
    return this.#db.collection<RebuildRecord>(REBUILDS);
  }

  async dump(collection: string): Promise<Array<{ partition: string; doc: Doc }>> {
    const rows = await this.#db
      .collection<Stored>(name(collection))
      .find(DOCUMENTS, { projection: { partition: 1, doc: 1 }, sort: { _id: 1 } })
      .toArray();
    return rows.map((r) => ({ partition: r.partition, doc: r.doc }));
  }

  async describe(): Promise<Record<string, unknown>> {
    return { engine: this.engine, database: this.#db.databaseName, connection: this.#connection };
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  async #create(physical: string, spec: CollectionSpec): Promise<void> {
    try {
      await this.#db.createCollection(physical);
    } catch (error) {
      if (!isCode(error, NAMESPACE_EXISTS)) throw error;
    }
    const coll = this.#db.collection(physical);
    const indexed: IndexedCollection = {
      createIndex: (key, options) => coll.createIndex(key, options),
      // The driver's dropIndex takes a name only; the command takes a key pattern too.
      dropIndex: (index) => this.#db.command({ dropIndexes: physical, index }),
      listIndexes: () => coll.listIndexes(),
    };
    for (const index of spec.indexes) await ensureIndex(indexed, index.name, index.fields);
  }

  /** One transaction; the driver re-runs `work` on a transient error (a write conflict, a step-down). */
  #transaction<T>(route: (c: string) => string, work: (docs: Documents, session: ClientSession) => Promise<T>): Promise<T> {
    return this.#client.withSession((session) =>
      session.withTransaction(() => work(new MongoDocuments(this.#db, route, this.#indexes, session), session), TRANSACTION),
    );
  }
}
