// The read store port over MongoDB (the `mongodb` driver). Transactions need a replica set (a
// one-node replica set is enough; see docker-compose.yml).
//
// Each read-model collection is a MongoDB collection of the same name holding
// `{ _id: partition + '\u0000' + id, partition, doc }`: the document is stored untouched under
// `doc`, so reads return exactly what was upserted. Because `_id` sorts as (partition, id), the
// `_id` index gives `get`, `getMany` and `dump` their order. Each IndexSpec becomes a compound
// index `{ partition: 1, 'doc.<field>': 1, ... }` named after the spec.
import { randomBytes } from 'node:crypto';
import { MongoClient, MongoServerError, type ClientSession, type Collection, type Db, type Document, type TransactionOptions } from 'mongodb';
import type { CollectionSpec, Doc, Documents, KeyValue, PageQuery, ReadStore, Rebuild } from '../read-store.ts';

const NAME = /^[a-z][a-z0-9_]*$/;
const FIELD = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/i;
const DEFAULT_DATABASE = 'repledger';

/** MongoDB server error codes handled here. */
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
    const row = await this.#run(() =>
      this.#coll(collection).findOne({ _id: keyOf(partition, id) }, { projection: { doc: 1 }, ...this.#opts() }),
    );
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
    await this.#run(() =>
      this.#coll(collection).replaceOne({ _id }, { partition, doc: asJson(doc) }, { upsert: true, ...this.#opts() }),
    );
  }

  async delete(collection: string, partition: string, id: string): Promise<void> {
    await this.#run(() => this.#coll(collection).deleteOne({ _id: keyOf(partition, id) }, this.#opts()));
  }

  async deleteWhere(collection: string, partition: string, index: string, prefix: KeyValue[]): Promise<number> {
    const fields = this.#fields(collection, index);
    if (prefix.length > fields.length) throw new Error(`prefix of ${index} is longer than the index`);
    const filter: Document = { partition };
    prefix.forEach((value, i) => (filter[path(fields[i]!)] = value));
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
      const op = q.direction === 'asc' ? '$gt' : '$lt';
      const after = q.after;
      filter.$or = rest.map((field, i) => {
        const clause: Document = {};
        for (let j = 0; j < i; j++) clause[path(rest[j]!)] = after[j];
        clause[path(field)] = { [op]: after[i] };
        return clause;
      });
    }
    const dir = q.direction === 'asc' ? 1 : -1;
    const sort = new Map<string, 1 | -1>([['partition', dir], ...fields.map((f): [string, 1 | -1] => [path(f), dir])]);
    const rows = await this.#run(() =>
      this.#coll(collection).find(filter, { projection: { doc: 1 }, sort, limit: q.limit, ...this.#opts() }).toArray(),
    );
    return rows.map((r) => r.doc as T);
  }

  async count(collection: string, partition?: string): Promise<number> {
    return this.#run(() => this.#coll(collection).countDocuments(partition === undefined ? {} : { partition }, this.#opts()));
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
  dropIndex(name: string): Promise<unknown>;
  listIndexes(): { toArray(): Promise<Document[]> };
}

const sameKey = (a: Document, b: Map<string, 1>) => JSON.stringify(Object.entries(a)) === JSON.stringify([...b]);

/**
 * Creates the compound index `{ partition, doc.<field>... }` named `name`, replacing whatever
 * stands in its way after a release changed an index:
 * - 86 IndexKeySpecsConflict: an index of this name has other fields;
 * - 85 IndexOptionsConflict: an index with these fields exists under another name (a renamed
 *   index: "Index already exists with a different name"), or under this name with other options.
 * Both are resolved by dropping every index that has this name or this key, then creating it.
 */
export async function ensureIndex(coll: IndexedCollection, name: string, fields: string[]): Promise<void> {
  const key = new Map<string, 1>([['partition', 1], ...fields.map((f): [string, 1] => [path(f), 1])]);
  try {
    await coll.createIndex(key, { name });
  } catch (error) {
    const changed = error instanceof MongoServerError && (error.code === INDEX_OPTIONS_CONFLICT || error.code === INDEX_KEY_SPECS_CONFLICT);
    if (!changed) throw error;
    const existing = await coll.listIndexes().toArray();
    const inTheWay = existing.filter((ix) => ix.name !== '_id_' && (ix.name === name || sameKey(ix.key as Document, key)));
    for (const ix of inTheWay) await coll.dropIndex(String(ix.name));
    await coll.createIndex(key, { name });
  }
}

/** The connection string without user:password. */
function redact(url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/?#]*@/i, '$1').replace(/([?&])(password|authMechanismProperties)=[^&]*/gi, '$1$2=***');
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
    for (const spec of specs) {
      this.#indexes.set(spec.name, new Map(spec.indexes.map((i) => [i.name, i.fields])));
      await this.#create(name(spec.name), spec);
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

  async beginRebuild(specs: CollectionSpec[]): Promise<Rebuild> {
    // Each rebuild writes to collections of its own: two replays at once must not empty each other's.
    const rebuildSuffix = `__rebuild_${randomBytes(4).toString('hex')}`;
    const names = new Set(specs.map((s) => name(s.name)));
    for (const spec of specs) {
      // A page on a rebuilt collection needs its index fields even before ensureCollections ran.
      if (!this.#indexes.has(spec.name)) this.#indexes.set(spec.name, new Map(spec.indexes.map((i) => [i.name, i.fields])));
      const fresh = spec.name + rebuildSuffix;
      await this.#db.collection(fresh).drop(); // leftovers of an interrupted rebuild
      await this.#create(fresh, spec);
    }
    // Collections not being rebuilt stay live, so a projection may still read and write them.
    const route = (c: string) => (names.has(c) ? c + rebuildSuffix : c);
    return {
      transaction: (work) => this.#transaction(route, work),
      swap: async (inSwap) => {
        // renameCollection cannot run inside a transaction, so the swap is not atomic: each fresh
        // collection replaces its live one (indexes included) in turn, then `inSwap` runs in a
        // transaction of its own against the live store. See the notes in the adapter's report.
        for (const spec of specs) {
          await this.#db.collection(spec.name + rebuildSuffix).rename(spec.name, { dropTarget: true });
        }
        if (inSwap) await this.#once((c) => c, inSwap);
      },
      discard: async () => {
        for (const spec of specs) await this.#db.collection(spec.name + rebuildSuffix).drop();
      },
    };
  }

  async dump(collection: string): Promise<Array<{ partition: string; doc: Doc }>> {
    const rows = await this.#db
      .collection<Stored>(name(collection))
      .find({}, { projection: { partition: 1, doc: 1 }, sort: { _id: 1 } })
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
      if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
    }
    const coll = this.#db.collection(physical);
    for (const index of spec.indexes) await ensureIndex(coll, index.name, index.fields);
  }

  #transaction<T>(route: (c: string) => string, work: (docs: Documents) => Promise<T>): Promise<T> {
    return this.#client.withSession((session) =>
      session.withTransaction(() => work(new MongoDocuments(this.#db, route, this.#indexes, session)), TRANSACTION),
    );
  }

  /**
   * One transaction, one attempt: the callback is not re-run on a transient error (the swap's
   * `inSwap` keeps state of its own, such as how far it has read the log), the error is thrown.
   */
  async #once(route: (c: string) => string, work: (docs: Documents) => Promise<void>): Promise<void> {
    const session = this.#client.startSession();
    try {
      session.startTransaction(TRANSACTION);
      try {
        await work(new MongoDocuments(this.#db, route, this.#indexes, session));
      } catch (error) {
        await session.abortTransaction().catch(() => undefined);
        throw error;
      }
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
  }
}
