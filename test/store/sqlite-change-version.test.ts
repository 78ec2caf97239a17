// The embedded store's change version: what the Agent Access check remembers callers against, so
// it must move on every commit, whoever makes it, and on nothing else.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqlite, type SqliteDatabase } from '../../services/store/sqlite/database.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';

/** A read store with one collection on a fresh database file (or in memory), closed afterwards. */
async function withStore(run: (db: SqliteDatabase, reads: SqliteReadStore, path: string) => Promise<void>, inMemory = false): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'repledger-version-'));
  const path = inMemory ? ':memory:' : join(dir, 'repledger.db');
  const db = openSqlite(path);
  try {
    const reads = new SqliteReadStore(db);
    await reads.ensureCollections([{ name: 'things', indexes: [] }]);
    await run(db, reads, path);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('reads leave it alone; a commit of this process moves it', () =>
  withStore(async (db, reads) => {
    const before = db.changeVersion();
    await reads.get('things', 'p', 'a');
    await reads.count('things', 'p');
    assert.is(db.changeVersion(), before, 'reads change nothing');
    await reads.upsert('things', 'p', { id: 'a' });
    const afterWrite = db.changeVersion();
    assert.is.not(afterWrite, before);
    await reads.delete('things', 'p', 'a');
    assert.is.not(db.changeVersion(), afterWrite);
  }));

test('a commit by another connection to the same file (another process, as the CLI is) moves it from the next turn of the event loop', () =>
  withStore(async (db, _reads, path) => {
    const theirs = openSqlite(path);
    try {
      const before = db.changeVersion();
      await new SqliteReadStore(theirs).upsert('things', 'p', { id: 'b' });
      // Read once a turn: requests handled in the same turn as the commit arrived with it.
      await new Promise((resolve) => setImmediate(resolve));
      assert.is.not(db.changeVersion(), before);
    } finally {
      theirs.close();
    }
  }));

test('an in-memory database (reads on its writer) still counts its commits', () =>
  withStore(async (db, reads) => {
    const before = db.changeVersion();
    await reads.upsert('things', 'p', { id: 'c' });
    assert.is.not(db.changeVersion(), before);
  }, true));

test('a rolled-back transaction leaves it alone', () =>
  withStore(async (db, reads) => {
    const before = db.changeVersion();
    await reads
      .transaction(async (docs) => {
        await docs.upsert('things', 'p', { id: 'd' });
        throw new Error('changed my mind');
      })
      .catch(() => undefined);
    assert.is(db.changeVersion(), before);
    assert.is(await reads.get('things', 'p', 'd'), null);
  }));

test.run();
