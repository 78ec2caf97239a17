// Proposal keys are primary data, kept with the event log: the read store can be deleted and
// rebuilt by a replay, and a pending proposal is still approvable, a saved one still undoable.
// Also: stores made before, whose keys were in the read store, have them moved at start (two
// processes at once included), and the retention purge removes a key's bytes from the file.
// On the embedded store always; on KurrentDB + MongoDB where containers run (or with
// KURRENTDB_URL and MONGODB_URL), dropping the MongoDB database.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MongoClient } from 'mongodb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { streams, type ProposalPrepared } from '../../contracts/events.ts';
import type { Caller } from '../../services/identity/caller.ts';
import { openApp, type App } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';
import { fixedClock } from '../../services/domain/clock.ts';
import { MongoReadStore } from '../../services/store/mongodb/read-store.ts';
import type { KeyStore, ProposalKey } from '../../services/store/key-store.ts';
import { openSqlite, type SqliteDatabase } from '../../services/store/sqlite/database.ts';
import { SqliteKeyStore } from '../../services/store/sqlite/key-store.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { moveKeysOutOfReadStore, READ_STORE_KEYS } from '../../services/writes/sealed.ts';
import { openTestApp, recordModels, registerAthlete, tempDir } from '../support/app.ts';
import { cli } from '../support/cli.ts';
import { agentCaller, seedRecord, validBody, type Seeded } from '../support/writes.ts';
import { freshDatabase, sharedServers } from '../support/distributed-servers.ts';
import { serverSuite, whyNoContainerRuntime } from '../store/container-runtime.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const DAY = 86_400_000;

/** A check-in update to leave pending, and a meal deletion to save; neither changes the other's item. */
function proposals(s: Seeded) {
  return {
    pending: validBody([
      {
        op: 'update',
        kind: 'recovery_checkin',
        id: s.checkinId,
        base_revision: 1,
        record: { date: s.checkinDate, sleep_quality: 5, energy: 5, soreness: 5, stress: 1 },
      },
    ]),
    saved: validBody([{ op: 'delete', kind: 'meal', id: s.mealId, base_revision: 1 }]),
  };
}

/** The record's read models without what moves on with every change (revisions, update times). */
const bodies = (m: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(m, (k, v) => (k === 'revision' || k === 'updated_at' || k === 'computed_at' ? undefined : v)));

interface Prepared {
  athleteId: string;
  caller: Caller;
  pending: string;
  saved: string;
  /** The record's read models before the saved batch: what its undo brings back. */
  before: Record<string, unknown>;
}

/** An athlete with a proposal awaiting review and a saved batch. */
async function prepareBoth(app: App, caughtUp: () => Promise<unknown> = async () => {}): Promise<Prepared> {
  const athleteId = await registerAthlete(app);
  await caughtUp();
  const seeded = await seedRecord(app, athleteId);
  await caughtUp();
  const caller = await agentCaller(app, athleteId);
  const { pending, saved } = proposals(seeded);
  await app.proposals.prepare(caller, pending);
  await caughtUp();
  const before = await recordModels(app);
  await app.proposals.prepare(caller, saved);
  assert.is((await app.proposals.approve(athleteId, saved.command_id)).outcome, 'committed');
  await caughtUp();
  return { athleteId, caller, pending: pending.command_id, saved: saved.command_id, before };
}

/** After the read store was lost and rebuilt: the saved batch undoes, the pending one saves. */
async function stillApprovableAndUndoable(app: App, p: Prepared, caughtUp: () => Promise<unknown> = async () => {}): Promise<void> {
  await app.proposals.undo(p.athleteId, p.saved);
  await caughtUp();
  assert.equal(bodies(await recordModels(app)), bodies(p.before), 'the undo brought the deleted meal back');
  const review = (await app.proposals.review(p.athleteId, p.pending))!;
  assert.ok(review.details?.actions.length, 'the pending proposal still opens: its actions are shown');
  assert.is((await app.proposals.approve(p.athleteId, p.pending)).outcome, 'committed');
  await caughtUp();
  const saved = (await app.proposals.get(p.caller, p.pending))!;
  assert.is(saved.status, 'committed');
  assert.ok(saved.actions, 'its actions still read');
}

/** Deletes the embedded read store: every read-model table of the database, checkpoints included. */
function dropReadModels(dataDir: string): string[] {
  const db = new DatabaseSync(join(dataDir, 'repledger.db'));
  try {
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm\\_%' ESCAPE '\\'`).all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
    for (const table of tables) db.exec(`DROP TABLE ${table}`);
    return tables;
  } finally {
    db.close();
  }
}

/** A proposal's key id, from its `proposal.prepared` event. */
async function keyIdOf(app: App, athleteId: string, commandId: string): Promise<string> {
  const events = await app.events.readStream(streams.record(athleteId));
  const prepared = events.find((e) => e.type === 'proposal.prepared' && (e.data as ProposalPrepared['data']).command_id === commandId)!;
  return (prepared.data as ProposalPrepared['data']).details.key_id;
}

const embedded = suite('keys outlive the embedded read store');

/** An embedded store, closed, holding a pending proposal and a saved batch (`prepareBoth`). */
async function storeWithBoth(): Promise<{ dataDir: string; p: Prepared }> {
  const t = await openTestApp({ now: NOW });
  try {
    return { dataDir: t.dataDir, p: await prepareBoth(t.app) };
  } finally {
    await t.app.close();
  }
}

embedded('the read models deleted and replayed: a pending proposal is still approvable, a saved batch still undoable', async () => {
  const { dataDir, p } = await storeWithBoth();
  const dropped = dropReadModels(dataDir);
  for (const table of ['rm_proposals', 'rm_meals', 'rm_projection_checkpoints'])
    assert.ok(dropped.includes(table), `${table} was dropped (of ${dropped.join(', ')})`);
  const reopened = await openTestApp({ dataDir, now: NOW });
  try {
    await reopened.app.runner.replay();
    await stillApprovableAndUndoable(reopened.app, p);
  } finally {
    await reopened.close();
  }
});

/** Turns a store into one as releases before this made it: its keys in the read store's `proposal_keys`, no key table. */
async function asStoreFromBefore(dataDir: string): Promise<string[]> {
  const db = openSqlite(join(dataDir, 'repledger.db'));
  try {
    const rows = db.reader.prepare('SELECT id, athlete_id, key, created_at FROM proposal_keys').all() as Array<{
      id: string;
      athlete_id: string;
      key: Uint8Array;
      created_at: string;
    }>;
    const reads = new SqliteReadStore(db);
    await reads.ensureCollections([READ_STORE_KEYS]);
    for (const r of rows)
      await reads.upsert(READ_STORE_KEYS.name, 'keys', {
        id: r.id,
        athlete_id: r.athlete_id,
        key: Buffer.from(r.key).toString('base64'),
        created_at: r.created_at,
      });
    db.writer.exec('DROP TABLE proposal_keys');
    return rows.map((r) => r.id);
  } finally {
    db.close();
  }
}

embedded('a store made before, its keys in the read store: two processes starting at once move them, none lost, and the old table goes', async () => {
  const { dataDir, p } = await storeWithBoth();
  const ids = await asStoreFromBefore(dataDir);
  assert.is(ids.length, 2);
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  const started = await Promise.all([cli(['projections', 'status', '--json'], env), cli(['projections', 'status', '--json'], env)]);
  for (const r of started) assert.is(r.code, 0, r.stderr);
  const reopened = await openTestApp({ dataDir, now: NOW });
  try {
    for (const id of ids) assert.ok(await reopened.app.keys.get(id), `key ${id} is in the key store`);
    const db = new DatabaseSync(join(dataDir, 'repledger.db'), { readOnly: true });
    try {
      assert.is(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'rm_proposal_keys'`).get(), undefined, 'the read store table is gone');
      assert.is((db.prepare('SELECT COUNT(*) AS n FROM proposal_keys').get() as { n: number }).n, 2, 'each key once');
    } finally {
      db.close();
    }
    await stillApprovableAndUndoable(reopened.app, p);
  } finally {
    await reopened.close();
  }
});

embedded('the retention purge removes the key from the database file: its bytes are nowhere in it or its WAL', async () => {
  const t = await openTestApp({ now: NOW });
  try {
    const athleteId = await registerAthlete(t.app);
    const seeded = await seedRecord(t.app, athleteId);
    const caller = await agentCaller(t.app, athleteId);
    const { pending: old, saved: recent } = proposals(seeded);
    await t.app.proposals.prepare(caller, old);
    const oldKey = (await t.app.keys.get(await keyIdOf(t.app, athleteId, old.command_id)))!;
    t.clock.advance(30 * DAY + 30 * 60_000 + 1);
    await t.app.proposals.prepare(caller, recent);
    const recentKey = (await t.app.keys.get(await keyIdOf(t.app, athleteId, recent.command_id)))!;
    const path = join(t.dataDir, 'repledger.db');
    const onDisk = () => Buffer.concat([readFileSync(path), existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0)]);
    const found = (bytes: Buffer, key: Buffer) => bytes.includes(key) || bytes.includes(Buffer.from(key.toString('base64')));
    assert.ok(found(onDisk(), oldKey.key), 'before the purge the key is in the file');
    assert.is((await t.app.proposals.purge()).keysDestroyed, 1);
    assert.is(await t.app.keys.get(oldKey.id), null);
    const bytes = onDisk();
    assert.not.ok(found(bytes, oldKey.key), 'the destroyed key is nowhere in the database file or its WAL');
    assert.ok(found(bytes, recentKey.key), 'a kept key is');
    assert.is((await t.app.proposals.get(caller, old.command_id))!.actions, null, 'what it sealed no longer opens');
  } finally {
    await t.close();
  }
});

embedded.run();

// Stores whose read models are elsewhere (MongoDB, or SQLite beside KurrentDB) move the keys
// through the ports, a page at a time; here with a SQLite read store in a file of its own.

const separate = suite('moving keys out of a read store of its own');

interface Separate {
  keys: SqliteKeyStore;
  reads: SqliteReadStore;
  made: ProposalKey[];
  /** Another process on the same two files. */
  another(): Promise<{ keys: SqliteKeyStore; reads: SqliteReadStore }>;
  /** Whether the read store still has its `proposal_keys` table. */
  readStoreTable(): boolean;
  inReadStore(id: string): Promise<boolean>;
  close(): void;
}

async function separateStores(count: number): Promise<Separate> {
  const dir = tempDir();
  const dbs: SqliteDatabase[] = [];
  const open = async () => {
    const [events, models] = [openSqlite(join(dir, 'events.db')), openSqlite(join(dir, 'reads.db'))];
    dbs.push(events, models);
    return { keys: await SqliteKeyStore.open(events), reads: new SqliteReadStore(models) };
  };
  const { keys, reads } = await open();
  await reads.ensureCollections([READ_STORE_KEYS]);
  const made = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    athlete_id: randomUUID(),
    key: randomBytes(32),
    created_at: new Date(Date.parse(NOW) - i * 60_000).toISOString(),
  }));
  for (const k of made) await reads.upsert(READ_STORE_KEYS.name, 'keys', { ...k, key: k.key.toString('base64') });
  const readStoreTable = () => Boolean(dbs[1]!.reader.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'rm_proposal_keys'`).get());
  return {
    keys,
    reads,
    made,
    another: open,
    readStoreTable,
    inReadStore: async (id) => readStoreTable() && (await reads.get(READ_STORE_KEYS.name, 'keys', id)) !== null,
    close: () => dbs.forEach((db) => db.close()),
  };
}

separate('every key moves into the key store, more than a page of them; the collection is dropped; a second start moves none', async () => {
  const s = await separateStores(600);
  try {
    assert.is(await moveKeysOutOfReadStore(s.reads, s.keys), 600);
    for (const k of s.made) assert.equal(await s.keys.get(k.id), k);
    assert.not.ok(s.readStoreTable(), 'the read store table is dropped');
    assert.is(await moveKeysOutOfReadStore(s.reads, s.keys), 0);
  } finally {
    s.close();
  }
});

separate('a key store failing midway: every key is in one store or the other, never neither, and the next start finishes', async () => {
  const s = await separateStores(600);
  try {
    let puts = 0;
    const failing: KeyStore = {
      engine: 'failing',
      put: async (k) => {
        if (++puts > 550) throw new Error('the key store went away');
        return s.keys.put(k);
      },
      get: (id) => s.keys.get(id),
      destroyBefore: (cutoff) => s.keys.destroyBefore(cutoff),
      destroyOf: (athleteId, keyIds) => s.keys.destroyOf(athleteId, keyIds),
      destroy: (keyIds) => s.keys.destroy(keyIds),
      describe: () => s.keys.describe(),
      close: async () => {},
    };
    const failed = await moveKeysOutOfReadStore(s.reads, failing).then(
      () => null,
      (e: unknown) => e as Error,
    );
    assert.is(failed?.message, 'the key store went away');
    let left = 0;
    for (const k of s.made) {
      const moved = (await s.keys.get(k.id)) !== null;
      const kept = await s.inReadStore(k.id);
      assert.ok(moved || kept, `key ${k.created_at} is somewhere`);
      if (kept) left++;
    }
    assert.ok(left > 0 && left < 600, `the failure came midway (${left} left in the read store)`);
    await moveKeysOutOfReadStore(s.reads, s.keys);
    for (const k of s.made) assert.equal(await s.keys.get(k.id), k);
  } finally {
    s.close();
  }
});

separate('two processes moving at once: both start, no key is lost, the collection is gone', async () => {
  const s = await separateStores(600);
  try {
    const other = await s.another();
    await Promise.all([moveKeysOutOfReadStore(s.reads, s.keys), moveKeysOutOfReadStore(other.reads, other.keys)]);
    for (const k of s.made) assert.equal(await s.keys.get(k.id), k);
    assert.not.ok(s.readStoreTable(), 'the read store table is dropped');
  } finally {
    s.close();
  }
});

separate.run();

// Distributed mode: events and keys in KurrentDB, read models in MongoDB.

async function distributedApp(mongodb: string, dataDir: string): Promise<App> {
  return openApp(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', KURRENTDB_URL: (await sharedServers()).kurrentdb, MONGODB_URL: mongodb }),
    fixedClock(NOW),
  );
}

function distributedSuite(skipped: string | null): void {
  const t = serverSuite('keys outlive the MongoDB read store', skipped);
  t.after(async () => (await sharedServers()).stop());

  t('the MongoDB database dropped and the read models replayed: a pending proposal is still approvable, a saved batch still undoable', async () => {
    const { url: mongodb, drop } = await freshDatabase();
    const dataDir = tempDir();
    let app = await distributedApp(mongodb, dataDir);
    try {
      // Projections follow the log in a worker here: each step's read models are caught up first.
      const p = await prepareBoth(app, () => app.runner.catchUp());
      await app.close();
      await drop();
      app = await distributedApp(mongodb, dataDir);
      await app.runner.replay();
      await stillApprovableAndUndoable(app, p, () => app.runner.catchUp());
    } finally {
      await app.close();
      await drop();
    }
  });

  t('keys a store made before kept in MongoDB are moved into KurrentDB at start, and the collection goes', async () => {
    const { url: mongodb, drop } = await freshDatabase();
    const reads = await MongoReadStore.connect(mongodb);
    const made = Array.from({ length: 3 }, (_, i) => ({
      id: randomUUID(),
      athlete_id: randomUUID(),
      key: randomBytes(32),
      created_at: new Date(Date.parse(NOW) - i * DAY).toISOString(),
    }));
    try {
      await reads.ensureCollections([READ_STORE_KEYS]);
      for (const k of made) await reads.upsert(READ_STORE_KEYS.name, 'keys', { ...k, key: k.key.toString('base64') });
    } finally {
      await reads.close();
    }
    const [a, b] = await Promise.all([distributedApp(mongodb, tempDir()), distributedApp(mongodb, tempDir())]);
    try {
      for (const k of made) assert.equal(await a.keys.get(k.id), k);
      const client = await MongoClient.connect(mongodb);
      try {
        const names = (await client.db().listCollections().toArray()).map((c) => c.name);
        assert.not.ok(
          names.some((n) => n.endsWith('proposal_keys')),
          `the collection is gone (${names.join(', ')})`,
        );
      } finally {
        await client.close();
      }
    } finally {
      await a.close();
      await b.close();
      await drop();
    }
  });

  t.run();
}

const haveUrls = Boolean(process.env.KURRENTDB_URL && process.env.MONGODB_URL);
const reason = haveUrls ? null : await whyNoContainerRuntime();
const skipped = reason && `${reason}; set KURRENTDB_URL and MONGODB_URL to use servers`;
if (skipped) console.log(`skipped: keys outlive the MongoDB read store — ${skipped}`);
distributedSuite(skipped);
