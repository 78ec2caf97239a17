// Two processes share the embedded database (the service and an import from the CLI).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';
import { tempDir } from '../support/app.ts';

/** Another process takes the write lock, says so, and holds it for `ms`. */
function holdWriteLock(path: string, ms: number): Promise<{ released: Promise<void> }> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(${JSON.stringify(path)});
    db.exec('BEGIN IMMEDIATE');
    console.log('locked');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script]);
  const released = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return new Promise((resolve) => child.stdout.once('data', () => resolve({ released })));
}

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

test.run();
