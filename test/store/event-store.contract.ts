// The behaviour every EventStore adapter must show. Streams get fresh names per case so the
// suite also runs against a shared server.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WrongExpectedRevisionError, type EventStore, type NewEvent, type StoredEvent } from '../../services/store/event-store.ts';

export interface EventStoreFixture {
  store: EventStore;
  close(): Promise<void>;
}

const ev = (type: string, data: unknown = {}): NewEvent => ({ type, data, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } });
const fresh = () => `test-${randomUUID()}`;

export function eventStoreContract(label: string, open: () => Promise<EventStoreFixture>): void {
  const t = suite<{ fx: EventStoreFixture }>(`event store contract: ${label}`, {} as { fx: EventStoreFixture });
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
    assert.equal(events.map((e) => [e.type, e.revision, e.stream]), [['a', 0, s], ['b', 1, s], ['c', 2, s]]);
    assert.equal(events.map((e) => e.data), [{ n: 1 }, { n: 2 }, { n: 3 }]);
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
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => fx.store.append(s, [ev(`w${i}`), ev(`w${i}`)], 0)),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    assert.is(won.length, 1);
    for (const o of outcomes) if (o.status === 'rejected') assert.instance(o.reason, WrongExpectedRevisionError);
    const events = await fx.store.readStream(s);
    assert.is(events.length, 3);
    assert.is(events[1]!.type, events[2]!.type);
  });

  t('a stream that does not exist reads as empty', async ({ fx }) => {
    assert.equal(await fx.store.readStream(fresh()), []);
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
    assert.equal(ours.map((e) => e.type), ['a1', 'b1', 'b2', 'a2']);
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
    await fx.store.append(s, [ev('after1'), ev('after2')], 0);
    await Promise.race([third, new Promise((_, rej) => setTimeout(() => rej(new Error('subscription delivered too little')), 10_000))]);
    await sub.stop();
    await fx.store.append(s, [ev('after-stop')], 2);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(got, ['before', 'after1', 'after2']);
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

  t('describe names the engine without credentials', async ({ fx }) => {
    const d = await fx.store.describe();
    assert.is(d.engine, fx.store.engine);
    assert.not.match(JSON.stringify(d), /password|secret/i);
  });

  t.run();
}
