// The key store contract on the embedded store, and what this adapter adds: keys in a table of the
// events database that a destroy really removes from the file (secure_delete, WAL truncated), and
// the move of keys out of the read store's `proposal_keys` table of stores made before.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProposalKey } from '../../services/store/key-store.ts';
import { openSqlite, type SqliteDatabase } from '../../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';
import { SqliteKeyStore } from '../../services/store/sqlite/key-store.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { keyStoreContract } from './key-store.contract.ts';

function tempDir(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'repledger-keys-'));
  return { path: join(dir, 'repledger.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

keyStoreContract('sqlite', async () => {
  const dir = tempDir();
  const db = openSqlite(dir.path);
  const others: SqliteDatabase[] = [];
  return {
    keys: await SqliteKeyStore.open(db),
    events: new SqliteEventStore(db),
    another: async () => {
      const other = openSqlite(dir.path);
      others.push(other);
      return SqliteKeyStore.open(other);
    },
    close: async () => {
      for (const other of others) other.close();
      db.close();
      dir.remove();
    },
  };
});

/** The database file and its WAL, as bytes on disk. */
function onDisk(path: string): Buffer {
  return Buffer.concat([readFileSync(path), existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0)]);
}

const newKey = (createdAt: string): ProposalKey => ({ id: randomUUID(), athlete_id: randomUUID(), key: randomBytes(32), created_at: createdAt });
const minute = (i: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 60_000).toISOString();

/** Where `key` is found in `bytes`: as stored (raw), or as the read store kept it (base64). */
const found = (bytes: Buffer, k: ProposalKey) => bytes.includes(k.key) || bytes.includes(Buffer.from(k.key.toString('base64')));

/**
 * `count` keys, one a minute, each stored in a transaction of its own between the appends of the
 * event log (as the service stores them); then every key before the `destroyed`-th is destroyed.
 */
async function storeAndDestroy(count: number, destroyed: number) {
  const dir = tempDir();
  const db = openSqlite(dir.path);
  const keys = await SqliteKeyStore.open(db);
  const events = new SqliteEventStore(db);
  const made: ProposalKey[] = [];
  for (let i = 0; i < count; i++) {
    made.push(newKey(minute(i)));
    await keys.put(made[i]!);
    await events.append(`record-${i % 7}`, [{ type: 'proposal.prepared', data: { i, padding: 'x'.repeat(600) }, metadata: {} }], 'any');
  }
  assert.is(await keys.destroyBefore(new Date(minute(destroyed))), destroyed);
  return { dir, db, keys, made };
}

const sqlite = suite('sqlite key store');

sqlite('a destroyed key is gone from the database file and its WAL, a kept one is there (a few keys: the WAL still holds their pages)', async () => {
  const { dir, db, made } = await storeAndDestroy(40, 20);
  try {
    const bytes = onDisk(dir.path);
    for (const k of made.slice(20)) assert.ok(found(bytes, k), `a kept key is in the file: ${k.created_at}`);
    const left = made.slice(0, 20).filter((k) => found(bytes, k));
    assert.equal(
      left.map((k) => k.created_at),
      [],
      'no destroyed key is left on disk',
    );
  } finally {
    db.close();
    dir.remove();
  }
});

sqlite('a destroyed key is gone from the file after thousands of keys and appends (pages split, checkpointed, reused)', async () => {
  const { dir, db, made } = await storeAndDestroy(2000, 1500);
  try {
    const bytes = onDisk(dir.path);
    assert.ok(
      made.slice(1500).every((k) => found(bytes, k)),
      'the kept keys are in the file',
    );
    const left = made.slice(0, 1500).filter((k) => found(bytes, k));
    assert.equal(
      left.map((k) => k.created_at),
      [],
      'no destroyed key is left on disk',
    );
  } finally {
    db.close();
    dir.remove();
  }
});

sqlite('secure_delete is on only while keys are written: the connection is as it was after a put and a purge', async () => {
  const dir = tempDir();
  const db = openSqlite(dir.path);
  try {
    const secureDelete = () => (db.writer.prepare('PRAGMA secure_delete').get() as { secure_delete: number }).secure_delete;
    assert.is(secureDelete(), 0);
    const keys = await SqliteKeyStore.open(db);
    await keys.put(newKey(minute(0)));
    assert.is(secureDelete(), 0, 'after a put');
    await keys.destroyBefore(new Date(minute(1)));
    assert.is(secureDelete(), 0, 'after a purge');
  } finally {
    db.close();
    dir.remove();
  }
});

/** The read store's collection of keys as the service declared it before keys were kept with the events. */
const READ_STORE_KEYS = { name: 'proposal_keys', indexes: [{ name: 'by_created', fields: ['created_at', 'id'] }] };

/** A store as releases before this one left it: keys in the read store's `proposal_keys`, none in the key table. */
async function storeFromBefore(path: string, count: number): Promise<ProposalKey[]> {
  const db = openSqlite(path);
  try {
    new SqliteEventStore(db);
    const reads = new SqliteReadStore(db);
    await reads.ensureCollections([READ_STORE_KEYS]);
    const made = Array.from({ length: count }, (_, i) => newKey(minute(i)));
    for (const k of made)
      await reads.upsert('proposal_keys', 'keys', { id: k.id, athlete_id: k.athlete_id, key: k.key.toString('base64'), created_at: k.created_at });
    return made;
  } finally {
    db.close();
  }
}

const tableExists = (db: SqliteDatabase, name: string) => Boolean(db.reader.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name));

sqlite('keys of a store made before move from the read store into the key table, and the read store table goes with their bytes', async () => {
  const dir = tempDir();
  const made = await storeFromBefore(dir.path, 300);
  const db = openSqlite(dir.path);
  try {
    const keys = await SqliteKeyStore.open(db);
    assert.is(await keys.adoptReadModelKeys(), 300);
    for (const k of made) assert.equal(await keys.get(k.id), k);
    assert.not.ok(tableExists(db, 'rm_proposal_keys'), 'the read store table is dropped');
    assert.is(await keys.adoptReadModelKeys(), 0, 'a second start has nothing to move');
    // Each key is now in the key table once (raw), and its base64 copy is gone from the file.
    const bytes = onDisk(dir.path);
    assert.ok(made.every((k) => bytes.includes(k.key)));
    const copies = made.filter((k) => bytes.includes(Buffer.from(k.key.toString('base64'))));
    assert.is(copies.length, 0, 'no read-store copy of a key is left on disk');
    assert.is(await keys.destroyBefore(new Date(minute(300))), 300);
    const after = onDisk(dir.path);
    assert.is(made.filter((k) => found(after, k)).length, 0, 'destroyed, they are gone');
  } finally {
    db.close();
    dir.remove();
  }
});

sqlite('two processes moving the keys at once: every key moved once, none lost', async () => {
  const dir = tempDir();
  const made = await storeFromBefore(dir.path, 500);
  const [a, b] = [openSqlite(dir.path), openSqlite(dir.path)];
  try {
    const [ka, kb] = await Promise.all([SqliteKeyStore.open(a), SqliteKeyStore.open(b)]);
    const moved = await Promise.all([ka.adoptReadModelKeys(), kb.adoptReadModelKeys()]);
    assert.equal(
      moved.sort((x, y) => x - y),
      [0, 500],
      'one moved them all, the other found the table gone',
    );
    for (const k of made) assert.equal(await kb.get(k.id), k);
    assert.is((a.reader.prepare('SELECT COUNT(*) AS n FROM proposal_keys').get() as { n: number }).n, 500);
  } finally {
    a.close();
    b.close();
    dir.remove();
  }
});

sqlite.run();
