// Processes that open one embedded store at the same moment (three workers started together, a
// service and its CLI): each makes the read models' tables and indexes it finds missing, and
// none fails because another made one between its look and its CREATE ("index ... already
// exists", seen once in CI when three `projections run` started at once).
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../support/app.ts';

/** Threads that each open the store at `path` and ensure every collection, all let go at once. */
async function openTogether(path: string, threads: number): Promise<string[]> {
  const barrier = new Int32Array(new SharedArrayBuffer(4));
  const script = `
    const { workerData, parentPort } = require('node:worker_threads');
    (async () => {
      const { projections } = await import(${JSON.stringify(new URL('../../projections/index.ts', import.meta.url).href)});
      const { ProjectionRunner } = await import(${JSON.stringify(new URL('../../projections/runner.ts', import.meta.url).href)});
      const { openSqlite } = await import(${JSON.stringify(new URL('../../services/store/sqlite/database.ts', import.meta.url).href)});
      const { SqliteReadStore } = await import(${JSON.stringify(new URL('../../services/store/sqlite/read-store.ts', import.meta.url).href)});
      const db = openSqlite(workerData.path);
      const reads = new SqliteReadStore(db);
      const specs = new ProjectionRunner(projections, reads, null).collectionSpecs();
      Atomics.add(workerData.barrier, 0, 1);
      while (Atomics.load(workerData.barrier, 0) < workerData.threads) Atomics.wait(workerData.barrier, 0, Atomics.load(workerData.barrier, 0), 5);
      try {
        await reads.ensureCollections(specs);
        parentPort.postMessage('ok');
      } catch (error) {
        parentPort.postMessage(String(error.message));
      } finally {
        db.close();
      }
    })();`;
  return Promise.all(
    Array.from({ length: threads }, () => {
      const worker = new Worker(script, { eval: true, workerData: { path, barrier, threads } });
      return new Promise<string>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }),
  );
}

test('six processes opening a fresh store at once all make its read models, none refused', async () => {
  for (let round = 0; round < 5; round++) {
    const answers = await openTogether(join(tempDir(), 'repledger.db'), 6);
    assert.equal(answers, Array(6).fill('ok'), `round ${round}: ${answers.join('; ')}`);
  }
});

test.run();
