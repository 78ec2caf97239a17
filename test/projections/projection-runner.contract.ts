// What every pair of an event store and a read store must do with the projections: the read
// models a runner builds from the reference log (test/support/event-log.ts) by catching up, by
// following as it is appended, and by replaying, are those of the embedded inline build. Every
// projection in projections/index.ts takes part, so new ones (and the event types the reference
// log gains) are checked on every adapter without a line here. The log's athletes get fresh ids
// in each case, so the suite also runs against servers that keep what earlier runs appended.
import { serverSuite } from '../store/container-runtime.ts';
import * as assert from 'uvu/assert';
import { projections } from '../../projections/index.ts';
import { CHECKPOINTS, ProjectionRunner } from '../../projections/runner.ts';
import type { EventStore } from '../../services/store/event-store.ts';
import type { ReadStore } from '../../services/store/read-store.ts';
import { copyLog, freshAthletes, only, readModelsOf, recordLog, untilProjected } from '../support/event-log.ts';

export interface StoresFixture {
  events: EventStore;
  /** Empty read models (a fresh database, or fresh files) for each case. */
  reads: ReadStore;
  close(): Promise<void>;
}

export function projectionRunnerContract(label: string, open: () => Promise<StoresFixture>, skipped: string | null = null): void {
  const t = serverSuite(`projection runner contract: ${label}`, skipped);

  async function withStores(run: (fx: StoresFixture, runner: ProjectionRunner) => Promise<void>): Promise<void> {
    const fx = await open();
    try {
      const runner = new ProjectionRunner(projections, fx.reads, fx.events);
      await runner.ensureCollections();
      await run(fx, runner);
    } finally {
      await fx.close();
    }
  }

  t("a retired projection's collections and checkpoint are gone once the collections are ensured", () =>
    withStores(async (fx) => {
      const old = { name: 'retired_things', indexes: [{ name: 'by_day', fields: ['day', 'id'] }] };
      await fx.reads.ensureCollections([old]);
      await fx.reads.upsert('retired_things', 'p', { id: 'a', day: '2026-01-01' });
      await fx.reads.upsert(CHECKPOINTS, 'projections', { id: 'retired', position: 7, version: 1 });
      await fx.reads.upsert(CHECKPOINTS, 'projections', { id: projections[0]!.name, position: 7, version: 1 });
      await new ProjectionRunner(projections, fx.reads, fx.events, { projections: ['retired'], collections: ['retired_things'] }).ensureCollections();
      await fx.reads.ensureCollections([old]);
      assert.is(await fx.reads.count('retired_things'), 0);
      assert.is(await fx.reads.get(CHECKPOINTS, 'projections', 'retired'), null);
      assert.ok(await fx.reads.get(CHECKPOINTS, 'projections', projections[0]!.name), 'the live checkpoints stay');
    }));

  t('catching up on the log builds the read models of the inline build', () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      await copyLog(copy.events, fx.events);
      await runner.catchUp();
      assert.equal(only(await readModelsOf(fx.reads), copy.ours), only(copy.expected(reference.readModels)));
    }));

  t('a follower applies each event once, as it is appended, and stops when told', () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      const errors: unknown[] = [];
      const subscription = await runner.follow((error) => errors.push(error));
      try {
        await copyLog(copy.events, fx.events);
        await untilProjected(fx.reads, await fx.events.headPosition());
      } finally {
        await subscription.stop();
      }
      assert.equal(errors, []);
      assert.equal(only(await readModelsOf(fx.reads), copy.ours), only(copy.expected(reference.readModels)));
    }));

  t('a replay rebuilds the same read models and leaves every checkpoint at the head', () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      await copyLog(copy.events, fx.events);
      await runner.catchUp();
      const result = await runner.replay();
      assert.equal(only(await readModelsOf(fx.reads), copy.ours), only(copy.expected(reference.readModels)));
      const status = await runner.status();
      assert.ok(status.every((s) => s.checkpoint === result.position && s.lag_events === 0), JSON.stringify(status));
    }));

  t.run();
}
