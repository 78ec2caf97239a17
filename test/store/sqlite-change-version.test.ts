// The embedded store's change version: what the Agent Access check remembers callers against, so
// it must move on every commit, whoever makes it, and on nothing else.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';

const SPECS = [{ name: 'things', indexes: [] }];

function tempDir(): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'repledger-version-'));
  return { path: join(dir, 'repledger.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

test('reads leave it alone; a commit of this process moves it', async () => {
  const dir = tempDir();
  const db = openSqlite(dir.path);
  try {
    const reads = new SqliteReadStore(db);
    await reads.ensureCollections(SPECS);
    const before = db.changeVersion();
    await reads.get('things', 'p', 'a');
    await reads.count('things', 'p');
    assert.is(db.changeVersion(), before, 'reads change nothing');
    await reads.upsert('things', 'p', { id: 'a' });
    const afterWrite = db.changeVersion();
    assert.is.not(afterWrite, before);
    await reads.delete('things', 'p', 'a');
    assert.is.not(db.changeVersion(), afterWrite);
  } finally {
    db.close();
    dir.remove();
  }
});

test('a commit by another connection to the same file (another process, as the CLI is) moves it', async () => {
  const dir = tempDir();
  const mine = openSqlite(dir.path);
  const theirs = openSqlite(dir.path);
  try {
    await new SqliteReadStore(mine).ensureCollections(SPECS);
    const other = new SqliteReadStore(theirs);
    await other.ensureCollections(SPECS);
    const before = mine.changeVersion();
    await other.upsert('things', 'p', { id: 'b' });
    assert.is.not(mine.changeVersion(), before);
  } finally {
    theirs.close();
    mine.close();
    dir.remove();
  }
});

test('an in-memory database (reads on its writer) still counts its commits', async () => {
  const db = openSqlite(':memory:');
  try {
    const reads = new SqliteReadStore(db);
    await reads.ensureCollections(SPECS);
    const before = db.changeVersion();
    await reads.upsert('things', 'p', { id: 'c' });
    assert.is.not(db.changeVersion(), before);
  } finally {
    db.close();
  }
});

test('a rolled-back transaction leaves it alone', async () => {
  const dir = tempDir();
  const db = openSqlite(dir.path);
  try {
    const reads = new SqliteReadStore(db);
    await reads.ensureCollections(SPECS);
    const before = db.changeVersion();
    await reads
      .transaction(async (docs) => {
        await docs.upsert('things', 'p', { id: 'd' });
        throw new Error('changed my mind');
      })
      .catch(() => undefined);
    assert.is(db.changeVersion(), before);
    assert.is(await reads.get('things', 'p', 'd'), null);
  } finally {
    db.close();
    dir.remove();
  }
});

test.run();
