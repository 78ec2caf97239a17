// The read store contract against MongoDB: the server at MONGODB_URL if set (it must be a replica
// set), else a one-node replica set in a container (testcontainers). Without either, the suites
// are registered as skipped. Each suite uses a database of its own and drops it afterwards.
import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import * as assert from 'uvu/assert';
import type { CollectionSpec } from '../../services/store/read-store.ts';
import { MongoReadStore } from '../../services/store/mongodb/read-store.ts';
import { serverSuite, whyNoContainerRuntime } from './container-runtime.ts';
import { readStoreContract, type ReadStoreFixture } from './read-store.contract.ts';

// The version docker-compose.yml pins.
const IMAGE = process.env.MONGODB_IMAGE ?? 'mongo:8.0.17';
const url = process.env.MONGODB_URL;

/** The container's replica set member is known by an internal host name: connect to it directly. */
function direct(connectionString: string): string {
  if (connectionString.includes('?')) return `${connectionString}&directConnection=true`;
  return `${connectionString.replace(/\/$/, '')}/?directConnection=true`;
}

interface Server {
  url: string;
  stop(): Promise<void>;
}

async function startServer(): Promise<Server> {
  if (url) return { url, stop: async () => {} };
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const container = await new MongoDBContainer(IMAGE).start();
  return { url: direct(container.getConnectionString()), stop: async () => void (await container.stop()) };
}

// One server for both suites: the contract's, then this adapter's own, which stops it.
let server: Promise<Server> | null = null;
const shared = () => (server ??= startServer());

interface MongoFixture extends ReadStoreFixture {
  store: MongoReadStore;
  /** The same database through a client of its own, to look behind the adapter. */
  db: Db;
  /** Another adapter on the same database: another process. */
  another(): Promise<MongoReadStore>;
}

async function open(): Promise<MongoFixture> {
  const connectionString = (await shared()).url;
  const database = `repledger_test_${randomUUID().replaceAll('-', '')}`;
  const store = await MongoReadStore.connect(connectionString, { database });
  const client = await MongoClient.connect(connectionString);
  const others: MongoReadStore[] = [];
  return {
    store,
    db: client.db(database),
    another: async () => {
      const other = await MongoReadStore.connect(connectionString, { database });
      others.push(other);
      return other;
    },
    close: async () => {
      await store.close();
      for (const other of others) await other.close();
      await client.db(database).dropDatabase();
      await client.close();
    },
  };
}

const SPECS: CollectionSpec[] = [
  { name: 'things', indexes: [{ name: 'by_day', fields: ['day', 'id'] }] },
  { name: 'others', indexes: [] },
];

/** What this adapter adds to the contract: rebuilds that survive the process that made them, and starts at once. */
function mongoSpecifics(skipped: string | null): void {
  const t = serverSuite<{ fx: MongoFixture }>('mongodb rebuilds', skipped, {} as { fx: MongoFixture });
  t.before(async (ctx) => {
    ctx.fx = await open();
    await ctx.fx.store.ensureCollections(SPECS);
  });
  t.after(async (ctx) => {
    await ctx.fx?.close();
    await (await shared()).stop();
  });

  const names = async (db: Db) => (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();

  t('a rebuild whose process is gone, and rebuild collections no rebuild records, are dropped at the next start', async ({ fx }) => {
    const other = await fx.another();
    await other.beginRebuild(SPECS, { things: 1 });
    // Its process died (a pid of this host that is not running), and a release before the
    // registry left a collection of its own.
    await fx.db.collection('_rebuilds').updateMany({}, { $set: { owner: { host: (await import('node:os')).hostname(), pid: 2 ** 22 + 12345 } } });
    await fx.db.createCollection('things__rebuild_0badc0de');
    const live = await fx.store.beginRebuild([SPECS[1]!], { others: 1 });
    assert.ok((await names(fx.db)).filter((n) => n.includes('__rebuild_')).length === 4);
    await fx.store.ensureCollections(SPECS);
    const left = (await names(fx.db)).filter((n) => n.includes('__rebuild_'));
    assert.is(left.length, 1, left.join(', '));
    assert.is(await fx.db.collection('_rebuilds').countDocuments(), 1, 'the live rebuild keeps its record');
    await live.discard();
    assert.equal(
      (await names(fx.db)).filter((n) => n.includes('__rebuild_')),
      [],
    );
  });

  t('a swap that died after one rename is completed by the next start, from the position the collections carry', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('things', p, { id: 'old', day: '2026-01-01' });
    const rebuild = await fx.store.beginRebuild(SPECS, { things: 3, others: 3 });
    await rebuild.transaction(async (docs) => {
      await docs.upsert('things', p, { id: 'new', day: '2026-01-02' });
      await docs.upsert('others', p, { id: 'o' });
    }, 77);
    // The process renamed `things`, then died: `others` is still beside its live collection.
    const [record] = await fx.db.collection('_rebuilds').find({}).toArray();
    const suffix = `__rebuild_${String(record!._id)}`;
    await fx.db.collection('_rebuilds').updateOne({ _id: record!._id }, { $set: { state: 'swapping', owner: null } });
    await fx.db.collection(`things${suffix}`).rename('things', { dropTarget: true });
    // The marker is no document: reads of the half-swapped collection do not see it.
    assert.is(await fx.store.count('things'), 1);
    assert.equal(
      (await fx.store.dump('things')).map((r) => r.doc.id),
      ['new'],
    );

    const finished: Array<[number, unknown]> = [];
    const restarted = await fx.another();
    await restarted.ensureCollections(SPECS);
    assert.is(
      await restarted.finishInterruptedSwaps(async (live, from, label) => {
        finished.push([from, label]);
        await live.upsert('others', p, { id: 'checkpoint', position: from });
      }),
      1,
    );
    assert.equal(finished, [[77, { things: 3, others: 3 }]]);
    assert.ok(await fx.store.get('others', p, 'o'), 'the second rename was completed');
    assert.ok(await fx.store.get('others', p, 'checkpoint'));
    assert.is(await fx.db.collection('_rebuilds').countDocuments(), 0);
    assert.is(await fx.db.collection('things').countDocuments({ _id: 0 as never }), 0, 'the markers are gone');
    assert.equal(
      (await names(fx.db)).filter((n) => n.includes('__rebuild_')),
      [],
    );
    assert.is(await restarted.finishInterruptedSwaps(async () => assert.unreachable('nothing left to finish')), 0);
  });

  t('a swap still being finished by a live process is waited for, not taken over', async ({ fx }) => {
    const rebuild = await fx.store.beginRebuild([SPECS[1]!], { others: 1 });
    await rebuild.transaction(async () => undefined, 5);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const swapping = rebuild.swap(() => held);
    await new Promise((r) => setTimeout(r, 300));
    const other = await fx.another();
    let waited = false;
    const finishing = other
      .finishInterruptedSwaps(async () => assert.unreachable('the owner finishes it'))
      .then((n) => {
        waited = true;
        return n;
      });
    await new Promise((r) => setTimeout(r, 700));
    assert.not.ok(waited, 'it waits while the owner is at work');
    release();
    await swapping;
    assert.is(await finishing, 0);
  });

  t('starts at once bring changed indexes to their declared fields, each allowing for what the others did', async ({ fx }) => {
    const raced: CollectionSpec[] = [
      {
        name: 'raced',
        indexes: [
          { name: 'by_day', fields: ['day', 'id'] },
          { name: 'by_group', fields: ['group'] },
        ],
      },
    ];
    // The previous release's indexes: by_day on other fields, and by_group's fields under another name.
    await fx.db.createCollection('raced');
    await fx.db.collection('raced').createIndex({ partition: 1, 'doc.day': 1 }, { name: 'by_day' });
    await fx.db.collection('raced').createIndex({ partition: 1, 'doc.group': 1 }, { name: 'legacy' });
    const starts = [fx.store, await fx.another(), await fx.another()];
    await Promise.all(starts.map((start) => start.ensureCollections(raced)));
    const indexes = (await fx.db.collection('raced').listIndexes().toArray()).map((ix) => [String(ix.name), ix.key]).sort();
    assert.equal(indexes, [
      ['_id_', { _id: 1 }],
      ['by_day', { partition: 1, 'doc.day': 1, 'doc.id': 1 }],
      ['by_group', { partition: 1, 'doc.group': 1 }],
    ]);
  });

  t('a swap whose record another process removed refuses, and leaves the live collection as it was', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('others', p, { id: 'live' });
    const rebuild = await fx.store.beginRebuild([SPECS[1]!], { others: 1 });
    await rebuild.transaction(async (docs) => docs.upsert('others', p, { id: 'rebuilt' }), 3);
    // Another start took it for abandoned (its heartbeat aged) and removed its record.
    await fx.db.collection('_rebuilds').deleteMany({});
    try {
      await rebuild.swap(async () => assert.unreachable('no finish for a rebuild this process no longer holds'));
      assert.unreachable('the swap went ahead');
    } catch (error) {
      assert.match((error as Error).message, /gone or no longer this process's/);
    }
    assert.equal(
      (await fx.store.dump('others')).filter((r) => r.partition === p).map((r) => r.doc.id),
      ['live'],
    );
    await rebuild.discard();
    assert.equal(
      (await names(fx.db)).filter((n) => n.includes('__rebuild_')),
      [],
    );
  });

  t('a swap another process took over while it finished rolls its finish back and leaves the swap to that process', async ({ fx }) => {
    const p = randomUUID();
    const rebuild = await fx.store.beginRebuild([SPECS[1]!], { others: 1 });
    await rebuild.transaction(async (docs) => docs.upsert('others', p, { id: 'rebuilt' }), 4);
    const registry = fx.db.collection('_rebuilds');
    const [record] = await registry.find({}).toArray();
    const elsewhere = { host: 'elsewhere', pid: 1 };
    try {
      await rebuild.swap(async (live) => {
        await live.upsert('others', p, { id: 'checkpoint' });
        // Its heartbeat aged and another start claimed the swap, outside this transaction.
        await registry.updateOne({ _id: record!._id }, { $set: { owner: elsewhere } });
      });
      assert.unreachable('the swap completed under another owner');
    } catch (error) {
      assert.match((error as Error).message, /another process has taken over its swap/);
    }
    assert.is(await fx.store.get('others', p, 'checkpoint'), null, 'its finish was rolled back');
    await rebuild.discard();
    assert.equal((await registry.findOne({ _id: record!._id }))?.owner, elsewhere, 'the new owner keeps its claim');
    // The new owner gives up, and the next start finishes the swap.
    await registry.updateOne({ _id: record!._id }, { $set: { owner: null } });
    assert.is(await fx.store.finishInterruptedSwaps(async () => undefined), 1);
    assert.ok(await fx.store.get('others', p, 'rebuilt'));
    assert.is(await registry.countDocuments(), 0);
  });

  t.run();
}

const reason = url ? null : await whyNoContainerRuntime();
const skipped = reason && `${reason}; set MONGODB_URL to use a server`;
if (skipped) console.log(`skipped: MongoDB contract — ${skipped}`);
readStoreContract('mongodb', open, skipped);
mongoSpecifics(skipped);
