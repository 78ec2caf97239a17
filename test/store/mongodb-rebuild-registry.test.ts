// A rebuild acts only while its record in `_rebuilds` is its own: when another process's clean-up
// removed the record, or another process took over its swap, the rebuild stops instead of making
// collections live or committing its finish. Without a server: the adapter runs on an in-memory
// database that answers the few calls a rebuild makes, matching filters by equality as MongoDB
// does for these, and refusing any filter it does not understand. It has no transaction
// isolation, so what a rolled-back finish wrote is the server suite's to check (mongodb.test.ts).
import { hostname } from 'node:os';
import type { Document, MongoClient } from 'mongodb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MongoReadStore } from '../../services/store/mongodb/read-store.ts';
import type { CollectionSpec } from '../../services/store/read-store.ts';

const OPERATORS = /^\$/;

function matches(doc: Document, filter: Document): boolean {
  return Object.entries(filter).every(([field, wanted]) => {
    if (OPERATORS.test(field)) throw new Error(`the fake does not understand ${field}`);
    const isOperator = wanted !== null && typeof wanted === 'object' && !Array.isArray(wanted) && Object.keys(wanted).some((k) => OPERATORS.test(k));
    if (isOperator) throw new Error(`the fake does not understand ${JSON.stringify(wanted)}`);
    return JSON.stringify(doc[field] ?? null) === JSON.stringify(wanted);
  });
}

/** `{ $set }`, or a pipeline of `{ $set }` stages with `$literal` and `$$NOW`: what the adapter sends. */
function changes(update: Document | Document[]): Document {
  const stages = Array.isArray(update) ? update : [update];
  const set: Document = {};
  for (const stage of stages) {
    for (const [field, value] of Object.entries(stage.$set as Document)) {
      set[field] = value === '$$NOW' ? new Date() : value !== null && typeof value === 'object' && '$literal' in value ? value.$literal : value;
    }
  }
  return set;
}

class FakeCollection {
  docs: Document[] = [];
  readonly db: FakeDb;
  readonly name: string;
  constructor(db: FakeDb, name: string) {
    this.db = db;
    this.name = name;
  }

  async updateOne(filter: Document, update: Document | Document[], options: { upsert?: boolean } = {}) {
    const doc = this.docs.find((d) => matches(d, filter));
    if (doc) Object.assign(doc, changes(update));
    else if (options.upsert) this.#write({ ...filter, ...changes(update) });
    return { matchedCount: doc ? 1 : 0, modifiedCount: doc ? 1 : 0 };
  }

  async replaceOne(filter: Document, replacement: Document, options: { upsert?: boolean } = {}) {
    const at = this.docs.findIndex((d) => matches(d, filter));
    if (at >= 0) this.docs[at] = { _id: this.docs[at]!._id, ...replacement };
    else if (options.upsert) this.#write({ ...filter, ...replacement });
    return { matchedCount: at >= 0 ? 1 : 0 };
  }

  async deleteOne(filter: Document) {
    const at = this.docs.findIndex((d) => matches(d, filter));
    if (at >= 0) this.docs.splice(at, 1);
    return { deletedCount: at >= 0 ? 1 : 0 };
  }

  async findOne(filter: Document) {
    return this.docs.find((d) => matches(d, filter)) ?? null;
  }

  async drop() {
    this.db.dropped.push(this.name);
    this.db.collections.delete(this.name);
    return true;
  }

  async rename(to: string) {
    this.db.renamed.push(`${this.name} -> ${to}`);
    this.db.collections.delete(this.name);
    const target = this.db.collection(to);
    target.docs = this.docs;
    this.db.collections.set(to, target);
  }

  /** MongoDB makes a collection on its first write. */
  #write(doc: Document) {
    this.db.collections.set(this.name, this);
    this.docs.push(doc);
  }
}

class FakeDb {
  readonly collections = new Map<string, FakeCollection>();
  readonly dropped: string[] = [];
  readonly renamed: string[] = [];

  collection(name: string): FakeCollection {
    return this.collections.get(name) ?? new FakeCollection(this, name);
  }

  async createCollection(name: string) {
    this.collections.set(name, this.collection(name));
  }

  listCollections(filter: { name: { $in: string[] } }) {
    const names = [...this.collections.keys()].filter((n) => filter.name.$in.includes(n));
    return { toArray: async () => names.map((name) => ({ name })) };
  }

  registry(): Document[] {
    return this.collection('_rebuilds').docs;
  }
}

/** A client of one database whose transactions just run their work (no isolation, no retries). */
function fakeClient(db: FakeDb): MongoClient {
  const session = { withTransaction: (work: () => Promise<unknown>) => work() };
  const client = { db: () => db, withSession: (work: (s: typeof session) => Promise<unknown>) => work(session), close: async () => {} };
  // The adapter takes a MongoClient; this stands in for the part of it a rebuild uses.
  return client as unknown as MongoClient;
}

const SPECS: CollectionSpec[] = [{ name: 'things', indexes: [] }];
const ELSEWHERE = { host: `${hostname()}-elsewhere`, pid: 1 };

async function rebuilding() {
  const db = new FakeDb();
  const store = new MongoReadStore(fakeClient(db), 'repledger');
  const rebuild = await store.beginRebuild(SPECS, { things: 1 });
  await rebuild.transaction(async (docs) => docs.upsert('things', 'p', { id: 'new' }), 7);
  const [record] = db.registry();
  return { db, rebuild, record: record!, fresh: `things__rebuild_${String(record!._id)}` };
}

test('a swap whose record another process removed refuses, renames nothing, and its discard drops the rebuild', async () => {
  const { db, rebuild, fresh } = await rebuilding();
  db.registry().length = 0; // another process's clean-up took it for abandoned
  try {
    await rebuild.swap(async () => assert.unreachable('no finish for a rebuild this process no longer holds'));
    assert.unreachable('the swap went ahead');
  } catch (error) {
    assert.match((error as Error).message, /record in _rebuilds is gone or no longer this process's/);
  }
  assert.equal(db.renamed, []);
  await rebuild.discard();
  assert.equal(db.dropped, [fresh]);
});

test('a swap whose record another process has claimed refuses too', async () => {
  const { db, rebuild, record } = await rebuilding();
  record.owner = ELSEWHERE;
  try {
    await rebuild.swap();
    assert.unreachable('the swap went ahead');
  } catch (error) {
    assert.match((error as Error).message, /not swapping it in/);
  }
  assert.equal(db.renamed, []);
  await rebuild.discard();
});

test('a swap taken over while it finishes does not complete, and its discard leaves the new owner its claim', async () => {
  const { db, rebuild, record, fresh } = await rebuilding();
  let finishes = 0;
  try {
    await rebuild.swap(async (_live, from) => {
      finishes++;
      assert.is(from, 7);
      record.owner = ELSEWHERE; // its heartbeat aged, and another start claimed the swap
    });
    assert.unreachable('the swap completed under another owner');
  } catch (error) {
    assert.match((error as Error).message, /another process has taken over its swap/);
  }
  assert.is(finishes, 1);
  assert.equal(db.renamed, [`${fresh} -> things`]);
  assert.is(db.registry().length, 1, 'the record is the new owner’s to remove');
  await rebuild.discard();
  assert.equal(db.registry()[0]!.owner, ELSEWHERE);
  assert.equal(db.dropped, []);
});

test('a swap that fails midway is released by its discard, for the next start to finish', async () => {
  const { db, rebuild } = await rebuilding();
  try {
    await rebuild.swap(async () => {
      throw new Error('lost the database');
    });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /lost the database/);
  }
  await rebuild.discard();
  assert.equal(
    db.registry().map((r) => [r.state, r.owner]),
    [['swapping', null]],
  );
});

test('a rebuild whose collections another process dropped fails its next batch', async () => {
  const { db, rebuild, fresh } = await rebuilding();
  db.registry().length = 0;
  await db.collection(fresh).drop();
  try {
    await rebuild.transaction(async (docs) => docs.upsert('things', 'p', { id: 'later' }), 8);
    assert.unreachable('the batch went on into a collection nobody will swap in');
  } catch (error) {
    assert.match((error as Error).message, /lost its position marker/);
  }
  await rebuild.discard();
});

test('a swap of a rebuild still its own completes', async () => {
  const { db, rebuild, fresh } = await rebuilding();
  const from: number[] = [];
  await rebuild.swap(async (_live, position) => void from.push(position));
  assert.equal(from, [7]);
  assert.equal(db.renamed, [`${fresh} -> things`]);
  assert.equal(db.registry(), []);
  assert.equal(
    db.collection('things').docs.map((d) => d._id),
    ['p\u0000new'],
  );
});

test.run();
