// Two processes share the embedded database (the service and an import from the CLI).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openApp } from '../../services/app.ts';
import { loadConfig } from '../../services/config.ts';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';
import { tempDir } from '../support/app.ts';

/**
 * Another process takes the write lock, says so, and holds it for `ms`; it says so again just
 * before it lets go (`releasing`), and `released` once it has.
 */
function holdWriteLock(path: string, ms: number): Promise<{ released: Promise<void>; releasing: Promise<void> }> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(${JSON.stringify(path)});
    db.exec('BEGIN IMMEDIATE');
    console.log('locked');
    setTimeout(() => { console.log('releasing'); db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script]);
  const released = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const said = (word: string) => new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes(word) && resolve()));
  const releasing = said('releasing');
  return said('locked').then(() => ({ released, releasing }));
}

test("opening a store takes no write lock: a command's start does not wait on another process's import", async () => {
  const dataDir = tempDir();
  await (await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }))).close();
  const { released, releasing } = await holdWriteLock(join(dataDir, 'repledger.db'), 3000);
  let lockHeld = true;
  void releasing.then(() => (lockHeld = false));
  const app = await openApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    assert.equal(await app.athletes.list(), []);
    assert.ok(lockHeld, 'opening waited for the other process to release its lock');
  } finally {
    await app.close();
    await released;
  }
});

test('a writer waits for another process to release the lock without freezing its event loop', async () => {
  const path = join(tempDir(), 'repledger.db');
  const db = openSqlite(path);
  const store = new SqliteEventStore(db);
  const { released } = await holdWriteLock(path, 1200);
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 20);
  const started = performance.now();
  await store.append('waits', [{ type: 'x', data: {}, metadata: {} }], 'no_stream');
  const waited = performance.now() - started;
  clearInterval(ticker);
  await released;
  assert.ok(waited >= 900, `the append went through while the other process held the lock (${waited.toFixed(0)} ms)`);
  assert.ok(ticks >= 20, `the event loop stood still while waiting (${ticks} ticks in ${waited.toFixed(0)} ms)`);
  assert.is((await store.readStream('waits')).length, 1);
  db.close();
});

test("a write scheduled inside a transaction that runs after it ended gets a transaction of its own, not another caller's", async () => {
  const db = openSqlite(join(tempDir(), 'repledger.db'));
  const store = new SqliteEventStore(db);
  let later: Promise<unknown> | null = null;
  let fire: () => void = () => undefined;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  // The first transaction leaves a callback behind, which fires once the second is open.
  await db.write(async () => {
    setImmediate(async () => {
      await fired;
      later = store.append('later', [{ type: 'x', data: {}, metadata: {} }], 'no_stream');
    });
  });
  // The second runs in a context of its own, lets the callback in while it is open, then fails.
  const failing = db.write(async () => {
    await store.append('failed', [{ type: 'x', data: {}, metadata: {} }], 'no_stream');
    fire();
    await new Promise((resolve) => setImmediate(resolve));
    throw new Error('this transaction is rolled back');
  });
  const refused = await failing.then(
    () => null,
    (error: Error) => error.message,
  );
  assert.is(refused, 'this transaction is rolled back');
  await later;
  assert.is((await store.readStream('failed')).length, 0);
  assert.is((await store.readStream('later')).length, 1, "the callback's write was not taken by the other transaction's rollback");
  db.close();
});

test.run();
