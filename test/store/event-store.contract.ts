// The behaviour every EventStore adapter must show. Streams get fresh names per case so the
// suite also runs against a shared server.
import { randomUUID } from 'node:crypto';
import { serverSuite } from './container-runtime.ts';
import { within } from '../support/eventually.ts';
import * as assert from 'uvu/assert';
import {
  AppendTooLargeError,
  WrongExpectedRevisionError,
  appendSize,
  type EventStore,
  type NewEvent,
  type StoredEvent,
} from '../../services/store/event-store.ts';

export interface EventStoreFixture {
  store: EventStore;
  /** The store's maximum append size in bytes (as `appendSize` counts), or null for none. */
  maxAppendBytes: number | null;
  close(): Promise<void>;
}

/** `count` events of about `bytes` each (an import's workouts, say), in `appendSize`'s measure. */
function bulky(count: number, bytes: number, tag: string): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    type: 'bulk',
    data: { i, tag, text: 'x'.repeat(Math.max(0, bytes - 64)) },
    metadata: { occurred_at: '2026-01-01T00:00:00.000Z' },
  }));
}

const ev = (type: string, data: unknown = {}): NewEvent => ({ type, data, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } });
const fresh = () => `test-${randomUUID()}`;

export function eventStoreContract(label: string, open: () => Promise<EventStoreFixture>, skipped: string | null = null): void {
  const t = serverSuite<{ fx: EventStoreFixture }>(`event store contract: ${label}`, skipped, {} as { fx: EventStoreFixture });
  t.before(async (ctx) => {
    ctx.fx = await open();
  });
  t.after(async (ctx) => {
    await ctx.fx?.close();
  });

  t('a new stream starts at revision 0 and keeps the order of appended events', async ({ fx }) => {
    const s = fresh();
    const r1 = await fx.store.append(s, [ev('a', { n: 1 }), ev('b', { n: 2 })], 'no_stream');
    assert.is(r1.revision, 1);
    const r2 = await fx.store.append(s, [ev('c', { n: 3 })], 1);
    assert.is(r2.revision, 2);
    assert.ok(r2.position > r1.position);
    const events = await fx.store.readStream(s);
    assert.equal(
      events.map((e) => [e.type, e.revision, e.stream]),
      [
        ['a', 0, s],
        ['b', 1, s],
        ['c', 2, s],
      ],
    );
    assert.equal(
      events.map((e) => e.data),
      [{ n: 1 }, { n: 2 }, { n: 3 }],
    );
    assert.ok(events[0]!.position < events[1]!.position && events[1]!.position < events[2]!.position);
  });

  t('data and metadata round-trip exactly', async ({ fx }) => {
    const s = fresh();
    const data = { text: 'Kniebeuge 💪 "quoted", 日本', nested: { list: [1, 2.5, null, true] }, empty: '' };
    await fx.store.append(s, [{ type: 'x', data, metadata: { occurred_at: '2026-01-01T00:00:00.000Z', actor: { type: 'operator', id: 'ops' } } }], 'no_stream');
    const [e] = await fx.store.readStream(s);
    assert.equal(e!.data, data);
    assert.equal(e!.metadata, { occurred_at: '2026-01-01T00:00:00.000Z', actor: { type: 'operator', id: 'ops' } });
  });

  t('a stale expected revision is refused and writes nothing', async ({ fx }) => {
    const s = fresh();
    await fx.store.append(s, [ev('a')], 'no_stream');
    for (const expected of ['no_stream', 5, -1 + 0] as const) {
      try {
        await fx.store.append(s, [ev('b'), ev('c')], expected === -1 ? 'no_stream' : expected);
        assert.unreachable('append should have been refused');
      } catch (error) {
        assert.instance(error, WrongExpectedRevisionError);
        assert.is((error as WrongExpectedRevisionError).actual, 0);
      }
    }
    try {
      await fx.store.append(fresh(), [ev('a')], 0);
      assert.unreachable('a missing stream is not at revision 0');
    } catch (error) {
      assert.instance(error, WrongExpectedRevisionError);
      assert.is((error as WrongExpectedRevisionError).actual, 'no_stream');
    }
    assert.is((await fx.store.readStream(s)).length, 1);
  });

  t('"any" appends without a check', async ({ fx }) => {
    const s = fresh();
    await fx.store.append(s, [ev('a')], 'any');
    const r = await fx.store.append(s, [ev('b')], 'any');
    assert.is(r.revision, 1);
  });

  t('of concurrent appends at the same expected revision exactly one wins', async ({ fx }) => {
    const s = fresh();
    await fx.store.append(s, [ev('seed')], 'no_stream');
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => fx.store.append(s, [ev(`w${i}`), ev(`w${i}`)], 0)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    assert.is(won.length, 1);
    for (const o of outcomes) if (o.status === 'rejected') assert.instance(o.reason, WrongExpectedRevisionError);
    const events = await fx.store.readStream(s);
    assert.is(events.length, 3);
    assert.is(events[1]!.type, events[2]!.type);
  });

  t('a stream reads from a revision, and at chosen revisions, in revision order', async ({ fx }) => {
    const s = fresh();
    await fx.store.append(
      s,
      ['a', 'b', 'c', 'd', 'e'].map((t) => ev(t)),
      'no_stream',
    );
    assert.equal(
      (await fx.store.readStream(s, 0)).map((e) => e.type),
      ['a', 'b', 'c', 'd', 'e'],
    );
    assert.equal(
      (await fx.store.readStream(s, 3)).map((e) => [e.type, e.revision]),
      [
        ['d', 3],
        ['e', 4],
      ],
    );
    assert.equal(await fx.store.readStream(s, 5), []);
    assert.equal(await fx.store.readStream(fresh(), 2), []);
    assert.equal(
      (await fx.store.readRevisions(s, [4, 1, 1, 9])).map((e) => [e.type, e.revision]),
      [
        ['b', 1],
        ['e', 4],
      ],
    );
    assert.equal(await fx.store.readRevisions(s, []), []);
    assert.equal(await fx.store.readRevisions(fresh(), [0]), []);
  });

  t('a stream that does not exist reads as empty', async ({ fx }) => {
    assert.equal(await fx.store.readStream(fresh()), []);
    assert.equal(await fx.store.readStream(fresh(), 0, 10), []);
    assert.is(await fx.store.streamRevision(fresh()), 'no_stream');
  });

  t('readStream with a limit reads a stream a page at a time from a revision, as readStream reads it whole', async ({ fx }) => {
    const s = fresh();
    const other = fresh();
    await fx.store.append(
      s,
      Array.from({ length: 7 }, (_, i) => ev('p', { i })),
      'no_stream',
    );
    await fx.store.append(other, [ev('elsewhere')], 'no_stream');
    await fx.store.append(s, [ev('p', { i: 7 })], 6);
    const pages: StoredEvent[][] = [];
    for (let from = 0; ; ) {
      const page = await fx.store.readStream(s, from, 3);
      pages.push(page);
      if (page.length < 3) break;
      from = page[page.length - 1]!.revision + 1;
    }
    assert.equal(
      pages.map((p) => p.length),
      [3, 3, 2],
    );
    assert.equal(pages.flat(), await fx.store.readStream(s));
    assert.equal(
      (await fx.store.readStream(s, 6, 100)).map((e) => e.data),
      [{ i: 6 }, { i: 7 }],
    );
    assert.equal(await fx.store.readStream(s, 8, 10), []);
    assert.is(await fx.store.streamRevision(s), 7);
  });

  t('readAll pages through every stream in global order from a position', async ({ fx }) => {
    const start = await fx.store.headPosition();
    const a = fresh();
    const b = fresh();
    await fx.store.append(a, [ev('a1')], 'no_stream');
    await fx.store.append(b, [ev('b1'), ev('b2')], 'no_stream');
    await fx.store.append(a, [ev('a2')], 0);
    const head = await fx.store.headPosition();
    assert.ok(head > start);
    const seen: StoredEvent[] = [];
    let after = start;
    for (;;) {
      const page = await fx.store.readAll(after, 2);
      if (page.length === 0) break;
      assert.ok(page.length <= 2);
      seen.push(...page);
      after = page[page.length - 1]!.position;
    }
    const ours = seen.filter((e) => e.stream === a || e.stream === b);
    assert.equal(
      ours.map((e) => e.type),
      ['a1', 'b1', 'b2', 'a2'],
    );
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.position > seen[i - 1]!.position);
    assert.is(seen[seen.length - 1]!.position, head);
  });

  t('subscribeAll delivers past events, then new ones, in order, until stopped', async ({ fx }) => {
    const s = fresh();
    const start = await fx.store.headPosition();
    await fx.store.append(s, [ev('before')], 'no_stream');
    const got: string[] = [];
    let errors = 0;
    let resolveThird!: () => void;
    const third = new Promise<void>((r) => (resolveThird = r));
    const sub = fx.store.subscribeAll(
      start,
      async (e) => {
        if (e.stream !== s) return;
        got.push(e.type);
        if (got.length === 3) resolveThird();
      },
      () => errors++,
    );
    // A second subscriber, left running: what it receives shows what was there to deliver.
    const witnessed: string[] = [];
    const seen = new Map<string, () => void>();
    const witnessSees = (type: string) => new Promise<void>((resolve) => seen.set(type, resolve));
    const witness = fx.store.subscribeAll(
      start,
      async (e) => {
        if (e.stream !== s) return;
        witnessed.push(e.type);
        seen.get(e.type)?.();
      },
      () => errors++,
    );
    await fx.store.append(s, [ev('after1'), ev('after2')], 0);
    await within(third, { what: 'the subscription delivers the first three events' });
    await within(sub.stop(), { what: 'stop() resolves' });
    // Events appended after stop() reach the witness, one append after another; the stopped
    // subscription, which was woken by the same appends, must have received none of them.
    for (const [i, type] of ['after-stop', 'later'].entries()) {
      const delivered = witnessSees(type);
      await fx.store.append(s, [ev(type)], 2 + i);
      await within(delivered, { what: `the live subscriber receives '${type}'` });
    }
    await within(witness.stop(), { what: "the live subscriber's stop() resolves" });
    assert.equal(witnessed, ['before', 'after1', 'after2', 'after-stop', 'later']);
    assert.equal(got, ['before', 'after1', 'after2'], 'nothing was delivered after stop() resolved');
    assert.is(errors, 0);
  });

  t('stop() waits for the handler call in flight, and nothing already read is delivered after it', async ({ fx }) => {
    const s = fresh();
    const start = await fx.store.headPosition();
    const got: string[] = [];
    let errors = 0;
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const sub = fx.store.subscribeAll(
      start,
      async (e) => {
        if (e.stream !== s) return;
        got.push(e.type);
        if (e.type === 'two') {
          entered();
          await held;
          order.push('handler returned');
        }
      },
      () => errors++,
    );
    // One append: 'three' is there to read while the handler call for 'two' is held open.
    await fx.store.append(s, [ev('one'), ev('two'), ev('three')], 'no_stream');
    await within(inHandler, { what: "the handler is called for 'two'" });
    const stopping = sub.stop().then(() => order.push('stop resolved'));
    // Let go of the handler call only after all that stop() could do without it has run (all of
    // it on the embedded store; a server's unsubscribe may take longer, which only weakens the check).
    setImmediate(release);
    await within(stopping, { what: 'stop() resolves once the handler call is let go' });
    assert.equal(order, ['handler returned', 'stop resolved'], 'stop() resolved only once the handler call in flight had returned');
    assert.equal(got, ['one', 'two'], "'three', there to read before stop(), was not delivered after it");
    assert.is(errors, 0);
  });

  t('a throwing subscriber stops and reports the error', async ({ fx }) => {
    const s = fresh();
    const start = await fx.store.headPosition();
    await fx.store.append(s, [ev('one'), ev('two')], 'no_stream');
    const reported = await new Promise<unknown>((resolve) => {
      const seen: string[] = [];
      fx.store.subscribeAll(
        start,
        async (e) => {
          if (e.stream !== s) return;
          seen.push(e.type);
          throw new Error(`boom at ${e.type}`);
        },
        resolve,
      );
    });
    assert.match(String(reported), 'boom at one');
  });

  t('an append over 3 MiB (more than one gRPC message) commits whole, or not at all on a conflict', async ({ fx }) => {
    const s = fresh();
    const events = bulky(40, 100_000, 'a');
    assert.ok(appendSize(events) > 3 * 1024 * 1024);
    if (fx.maxAppendBytes !== null) assert.ok(appendSize(events) < fx.maxAppendBytes, 'the fixture allows appends of 4 MiB');
    const r = await fx.store.append(s, events, 'no_stream');
    assert.is(r.revision, 39);
    const read = await fx.store.readStream(s);
    assert.equal(
      read.map((e) => (e.data as { i: number }).i),
      events.map((_, i) => i),
    );
    assert.equal(read[39]!.data, events[39]!.data);
    // The same size against a stale revision: refused, and none of its messages written.
    const refused = await fx.store.append(s, bulky(40, 100_000, 'b'), 5).catch((e: unknown) => e);
    assert.instance(refused, WrongExpectedRevisionError);
    assert.is((await fx.store.readStream(s)).length, 40);
  });

  t('the maximum append size: an append at it commits, one byte over is refused whole', async ({ fx }) => {
    if (fx.maxAppendBytes === null) {
      // No maximum: an append bigger than any server default of the last releases (16 MiB) commits.
      const s = fresh();
      const events = bulky(20, 1_000_000, 'big');
      assert.ok(appendSize(events) > 16 * 1024 * 1024);
      await fx.store.append(s, events, 'no_stream');
      assert.is((await fx.store.readStream(s)).length, 20);
      return;
    }
    const max = fx.maxAppendBytes;
    const exactly = (total: number, tag: string): NewEvent[] => {
      const events = bulky(Math.ceil(total / 1_000_000), 1_000_000, tag);
      const last = events[events.length - 1]!;
      const text = (last.data as { text: string }).text;
      // Trim the last event until the whole append measures `total` bytes.
      (last.data as { text: string }).text = text.slice(0, text.length - (appendSize(events) - total));
      assert.is(appendSize(events), total);
      return events;
    };
    const over = fresh();
    const refused = await fx.store.append(over, exactly(max + 1, 'over'), 'no_stream').catch((e: unknown) => e);
    assert.instance(refused, AppendTooLargeError);
    assert.is((refused as AppendTooLargeError).maxBytes, max);
    assert.equal(await fx.store.readStream(over), []);
    const at = fresh();
    const events = exactly(max, 'at');
    await fx.store.append(at, events, 'no_stream');
    assert.is((await fx.store.readStream(at)).length, events.length);
  });

  t('describe names the engine without credentials', async ({ fx }) => {
    const d = await fx.store.describe();
    assert.is(d.engine, fx.store.engine);
    assert.not.match(JSON.stringify(d), /password|secret/i);
  });

  t('deleteStream: the stream reads as absent, can be started again, and other streams are untouched', async ({ fx }) => {
    const [gone, kept] = [fresh(), fresh()];
    await fx.store.append(gone, [ev('a', { secret: 'x' }), ev('b')], 'no_stream');
    await fx.store.append(kept, [ev('k')], 'no_stream');
    await fx.store.deleteStream(gone);
    assert.equal(await fx.store.readStream(gone), []);
    assert.is(await fx.store.streamRevision(gone), 'no_stream');
    await fx.store.deleteStream(gone); // again: nothing to do
    await fx.store.deleteStream(fresh()); // never there: nothing to do
    // An e-mail claim is written again by an append expecting no stream.
    await fx.store.append(gone, [ev('again')], 'no_stream');
    assert.equal(
      (await fx.store.readStream(gone)).map((e) => e.type),
      ['again'],
    );
    assert.equal(
      (await fx.store.readStream(kept)).map((e) => e.type),
      ['k'],
    );
    await fx.store.eraseFreedSpace();
    assert.equal(
      (await fx.store.readStream(kept)).map((e) => e.type),
      ['k'],
    );
  });

  t.run();
}
