// What every pair of an event store and a read store must do with the projections: the read
// models a runner builds from the reference log (test/support/event-log.ts) by catching up, by
// following as it is appended, and by replaying, are those of the embedded inline build. Every
// projection in projections/index.ts takes part, so new ones (and the event types the reference
// log gains) are checked on every adapter without a line here. The log's athletes get fresh ids
// in each case, so the suite also runs against servers that keep what earlier runs appended.
import { serverSuite } from '../store/container-runtime.ts';
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { projections } from '../../projections/index.ts';
import { Follower, type FollowerState } from '../../projections/follower.ts';
import { LeaseLost, leaseHolder, ProjectorLease } from '../../projections/lease.ts';
import { CHECKPOINTS, ProjectionRunner } from '../../projections/runner.ts';
import { PROPOSALS } from '../../projections/proposals.ts';
import { fixedClock, systemClock } from '../../services/domain/clock.ts';
import type { StoredEvent } from '../../services/store/event-store.ts';
import { eventually } from '../support/eventually.ts';
import type { EventStore } from '../../services/store/event-store.ts';
import type { ReadStore } from '../../services/store/read-store.ts';
import { copyLog, freshAthletes, only, readModelsOf, recordLog, untilProjected } from '../support/event-log.ts';

/** The reference log's events that the proposals projection keeps, with the athlete whose they are. */
const proposalsOf = (events: StoredEvent[]) =>
  events
    .filter((e) => e.type === 'proposal.prepared')
    .map((e) => ({ athlete: e.stream.replace(/^record-/, ''), id: (e.data as { command_id: string }).command_id }));

/** An event store whose `readAll` below `below` waits for `open()` once it is closed: a rebuild held midway. */
function heldBelow(events: EventStore, below: () => number) {
  let closed = false;
  let open: () => void = () => undefined;
  let gate = Promise.resolve();
  const store = new Proxy(events, {
    get(target, key) {
      if (key === 'readAll') {
        return async (after: number, limit: number) => {
          if (closed && after < below()) await gate;
          return target.readAll(after, limit);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store,
    close() {
      closed = true;
      gate = new Promise((resolve) => (open = resolve));
    },
    open: () => open(),
  };
}

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
    }),
  );

  t('catching up on the log builds the read models of the inline build', () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      await copyLog(copy.events, fx.events);
      await runner.catchUp();
      assert.equal(only(await readModelsOf(fx.reads), copy.ours), only(copy.expected(reference.readModels)));
    }),
  );

  t('a follower applies each event once, as it is appended, and stops when told', () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      const errors: unknown[] = [];
      const subscription = new Follower(runner, fx.events, new ProjectorLease(fx.reads, systemClock, 15_000), { onError: (error) => errors.push(error) });
      await subscription.start();
      try {
        await copyLog(copy.events, fx.events);
        await untilProjected(fx.reads, await fx.events.headPosition());
      } finally {
        await subscription.stop();
      }
      assert.equal(errors, []);
      assert.equal(only(await readModelsOf(fx.reads), copy.ours), only(copy.expected(reference.readModels)));
    }),
  );

  t('a replay rebuilds the same read models and leaves every checkpoint at the head', () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      await copyLog(copy.events, fx.events);
      await runner.catchUp();
      const result = await runner.replay();
      assert.equal(only(await readModelsOf(fx.reads), copy.ours), only(copy.expected(reference.readModels)));
      const status = await runner.status();
      assert.ok(
        status.every((s) => s.checkpoint === result.position && s.lag_events === 0),
        JSON.stringify(status),
      );
    }),
  );

  t('one projector lease: a second process waits; it passes on release, or on expiry with a greater token', () =>
    withStores(async (fx) => {
      const clock = fixedClock('2026-06-01T10:00:00.000Z');
      const a = new ProjectorLease(fx.reads, clock, 1000, `a-${randomUUID()}`);
      const b = new ProjectorLease(fx.reads, clock, 1000, `b-${randomUUID()}`);
      const first = await a.acquire();
      assert.ok(first !== null);
      assert.is(await b.acquire(), null, 'held, not expired');
      assert.is(await a.acquire(), first, 'the holder keeps its token');
      clock.advance(999);
      assert.is(await b.acquire(), null, 'one millisecond left');
      clock.advance(2);
      assert.is(await b.acquire(), first + 1, 'expired: taken over, with the next token');
      assert.is(await a.renew(), false, 'the old holder finds it gone');
      assert.is(a.token, null);
      await b.release();
      assert.is(await a.acquire(), first + 2, 'released: taken at once');
      assert.is((await leaseHolder(fx.reads))?.holder, a.holder);
    }),
  );

  t("a holder whose lease passed has its batch refused in the batch's own transaction: nothing of it written", () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      const clock = fixedClock('2026-06-01T10:00:00.000Z');
      const a = new ProjectorLease(fx.reads, clock, 1000, `a-${randomUUID()}`);
      const b = new ProjectorLease(fx.reads, clock, 1000, `b-${randomUUID()}`);
      await a.acquire();
      runner.fencedBy((docs) => a.fence(docs));
      await copyLog(copy.events.slice(0, 5), fx.events);
      await runner.catchUp();
      const before = await runner.status();
      // A paused past its lease (a long GC, SIGSTOP); B took over meanwhile.
      clock.advance(1001);
      assert.ok((await b.acquire()) !== null);
      await copyLog(copy.events.slice(5, 10), fx.events);
      try {
        await runner.catchUp();
        assert.unreachable('the stale holder applied a batch');
      } catch (error) {
        assert.instance(error, LeaseLost);
      }
      assert.equal(
        (await runner.status()).map((s) => s.checkpoint),
        before.map((s) => s.checkpoint),
        'no checkpoint moved',
      );
      // The new holder applies them, once: what it built is what a replay from the first event builds.
      const other = new ProjectionRunner(projections, fx.reads, fx.events);
      other.fencedBy((docs) => b.fence(docs));
      await other.catchUp();
      const followed = only(await readModelsOf(fx.reads), copy.ours);
      await other.replay();
      assert.equal(followed, only(await readModelsOf(fx.reads), copy.ours));
    }),
  );

  t('three followers started at once: one holds the lease and follows, the others wait; the read models are those of one replay', () =>
    withStores(async (fx) => {
      const reference = await recordLog();
      const copy = freshAthletes(reference.events);
      const errors: unknown[] = [];
      const states: FollowerState[][] = [[], [], []];
      const followers = states.map(
        (seen) =>
          new Follower(new ProjectionRunner(projections, fx.reads, fx.events), fx.events, new ProjectorLease(fx.reads, systemClock, 15_000), {
            onError: (error) => errors.push(error),
            onState: (state) => seen.push(state),
          }),
      );
      try {
        await Promise.all(followers.map((f) => f.start()));
        assert.equal(followers.filter((f) => f.following).length, 1, JSON.stringify(states));
        assert.equal(states.filter((seen) => seen.some((s) => s.state === 'waiting')).length, 2, JSON.stringify(states));
        await copyLog(copy.events, fx.events);
        await untilProjected(fx.reads, await fx.events.headPosition());
      } finally {
        await Promise.all(followers.map((f) => f.stop()));
      }
      assert.equal(errors, []);
      assert.equal(only(await readModelsOf(fx.reads), copy.ours), only(copy.expected(reference.readModels)));
    }),
  );

  t('an outdated projection is rebuilt beside the live one, which keeps following, as every other does: a new proposal shows while the rebuild is held', () =>
    withStores(async (fx, runner) => {
      const reference = await recordLog();
      const before = freshAthletes(reference.events);
      const during = freshAthletes(reference.events);
      await copyLog(before.events, fx.events);
      await runner.catchUp();
      // A release that bumps the workouts projection's version: its checkpoint says an older one built it.
      const workouts = projections.find((p) => p.name === 'workouts')!;
      const checkpoint = (await fx.reads.get<{ id: string; position: number }>(CHECKPOINTS, 'projections', workouts.name))!;
      await fx.reads.upsert(CHECKPOINTS, 'projections', { ...checkpoint, version: (workouts.version ?? 1) - 1 });
      const startedAt = await fx.events.headPosition();
      // The rebuild is held after its first batch, however fast the store: the log before the start is read no further.
      const held = heldBelow(fx.events, () => startedAt);
      const states: FollowerState[] = [];
      const errors: unknown[] = [];
      const follower = new Follower(new ProjectionRunner(projections, fx.reads, held.store), fx.events, new ProjectorLease(fx.reads, systemClock, 15_000), {
        onError: (error) => errors.push(error),
        onState: (state) => {
          states.push(state);
          if (state.state === 'rebuilding') held.close();
        },
      });
      try {
        await follower.start();
        assert.equal(
          states.map((s) => s.state),
          ['following', 'rebuilding'],
        );
        await copyLog(during.events, fx.events);
        const wanted = proposalsOf(during.events);
        assert.ok(wanted.length > 0);
        await eventually(
          async () => {
            const found = await Promise.all(wanted.map((w) => fx.reads.get(PROPOSALS, w.athlete, w.id)));
            return { done: found.every((d) => d !== null), value: found.map((d) => d !== null) };
          },
          { what: "the new athlete's proposals in the proposals read model while workouts is rebuilt" },
        );
        assert.not.ok(
          states.some((s) => s.state === 'rebuilt'),
          'the rebuild was still held',
        );
        // The live workouts collection kept following too.
        assert.ok((await fx.reads.count('workouts')) > 0);
        held.open();
        await eventually(() => ({ done: states.some((s) => s.state === 'rebuilt'), value: states }), { what: 'the rebuild swapped in', timeoutMs: 30_000 });
        await untilProjected(fx.reads, await fx.events.headPosition());
      } finally {
        held.open();
        await follower.stop();
      }
      assert.equal(errors, []);
      const ours = (row: unknown) => before.ours(row) || during.ours(row);
      const followed = only(await readModelsOf(fx.reads), ours);
      await runner.replay();
      assert.equal(followed, only(await readModelsOf(fx.reads), ours));
      assert.is((await runner.outdated()).length, 0);
    }),
  );

  t.run();
}
