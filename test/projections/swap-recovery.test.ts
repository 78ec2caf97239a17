// A replay's swap that cannot finish in one transaction (MongoDB renames collections outside
// one) must still leave read models and checkpoints in step: the runner finishes it from the
// position the swapped-in collections carry, however often it has to try, and at the next start
// if the process died. Here on the embedded store, with the read store reporting what the
// MongoDB adapter reports: the interrupted swap, and a finish retried after a rollback.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projections } from '../../projections/index.ts';
import { CHECKPOINTS, ProjectionRunner } from '../../projections/runner.ts';
import type { Documents, FinishSwap, ReadStore, Rebuild } from '../../services/store/read-store.ts';
import { openSqlite, type SqliteDatabase } from '../../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { tempDir } from '../support/app.ts';
import { copyLog, readModelsOf, recordLog, upTo } from '../support/event-log.ts';

/** Events and read models in one embedded database, projected by a runner as a worker would. */
async function openStores(): Promise<{ db: SqliteDatabase; events: SqliteEventStore; reads: SqliteReadStore }> {
  const db = openSqlite(join(tempDir(), 'repledger.db'));
  const events = new SqliteEventStore(db);
  const reads = new SqliteReadStore(db);
  await copyLog((await recordLog()).events, events);
  return { db, events, reads };
}

/** `store` with some of its methods replaced. */
function overriding<T extends object>(store: T, overrides: Partial<T>): T {
  return new Proxy(store, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof T];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const NUTRITION = projections.find((p) => p.name === 'nutrition_days')!;
const WORKOUTS = projections.find((p) => p.name === 'workouts')!;

for (const checkpoint of ['ahead of', 'behind'] as const) {
  test(`a swap that died before its checkpoint committed (old checkpoint ${checkpoint} the rebuild) is finished at the next start`, async () => {
    const { events, reads } = await openStores();
    const reference = await readModelsOf(
      await (async () => {
        const r = new ProjectionRunner(projections, reads, events);
        await r.ensureCollections();
        await r.catchUp();
        return reads;
      })(),
    );
    const log = await events.readAll(0, 100_000);
    const rebuiltTo = log[Math.floor(log.length / 2)]!.position;
    // The replay rebuilt two projections up to `rebuiltTo` and made them live; then its process
    // died, leaving the checkpoints the old collections had.
    await new ProjectionRunner(projections, reads, upTo(events, rebuiltTo)).replay([NUTRITION.name, WORKOUTS.name]);
    const old = checkpoint === 'ahead of' ? log[log.length - 1]!.position : log[3]!.position;
    for (const p of [NUTRITION, WORKOUTS]) await reads.upsert(CHECKPOINTS, 'projections', { id: p.name, position: old, version: p.version ?? 1 });

    let reported = 0;
    const crashed = overriding<ReadStore>(reads, {
      finishInterruptedSwaps: async (finish: FinishSwap) => {
        if (reported++ > 0) return 0;
        await reads.transaction((live) => finish(live, rebuiltTo, { [NUTRITION.name]: NUTRITION.version ?? 1, [WORKOUTS.name]: WORKOUTS.version ?? 1 }));
        return 1;
      },
    });
    const restarted = new ProjectionRunner(projections, crashed, events);
    await restarted.ensureCollections();
    await restarted.catchUp();
    assert.is(reported, 1);
    assert.equal(await readModelsOf(reads), reference);
    const status = await restarted.status();
    assert.ok(
      status.every((s) => s.lag_events === 0),
      JSON.stringify(status),
    );
  });
}

test('a finish that is rolled back and run again starts again from the rebuilt position', async () => {
  const { db, events, reads } = await openStores();
  const runner = new ProjectionRunner(projections, reads, events);
  await runner.ensureCollections();
  await runner.catchUp();
  const reference = await readModelsOf(reads);
  const log = await events.readAll(0, 100_000);
  let retried = 0;
  // The rebuild sees the first half of the log; the rest arrives before its swap, so the finish
  // has work to do. Its first attempt is rolled back, as a write conflict would roll it back.
  const half = log[Math.floor(log.length / 2)]!.position;
  let view = upTo(events, half);
  const retrying = overriding<ReadStore>(reads, {
    beginRebuild: async (specs: Parameters<ReadStore['beginRebuild']>[0]): Promise<Rebuild> => {
      const rebuild = await reads.beginRebuild(specs);
      return {
        ...rebuild,
        swap: (finish?: (live: Documents, from: number) => Promise<void>) => {
          view = events;
          return rebuild.swap(async (live, from) => {
            assert.is(from, half);
            db.writer.exec('SAVEPOINT attempt');
            await finish!(live, from);
            db.writer.exec('ROLLBACK TO attempt');
            db.writer.exec('RELEASE attempt');
            retried++;
            await finish!(live, from);
          });
        },
      };
    },
  });
  const replaying = new ProjectionRunner(
    projections,
    retrying,
    overriding(events, { readAll: (after: number, limit: number) => view.readAll(after, limit), headPosition: () => view.headPosition() }),
  );
  const result = await replaying.replay();
  assert.is(retried, 1);
  assert.is(result.position, log[log.length - 1]!.position);
  assert.equal(await readModelsOf(reads), reference);
  const status = await runner.status();
  assert.ok(
    status.every((s) => s.checkpoint === result.position),
    JSON.stringify(status),
  );
});

test.run();
