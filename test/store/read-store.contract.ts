// The behaviour every ReadStore adapter must show.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CollectionSpec, Doc, ReadStore } from '../../services/store/read-store.ts';

export interface ReadStoreFixture {
  store: ReadStore;
  close(): Promise<void>;
}

const specs: CollectionSpec[] = [
  { name: 'contract_items', indexes: [{ name: 'by_day', fields: ['day', 'id'] }, { name: 'by_group', fields: ['group', 'n', 'id'] }] },
  { name: 'contract_other', indexes: [] },
];

interface Item extends Doc {
  day: string;
  group: string;
  n: number;
}

export function readStoreContract(label: string, open: () => Promise<ReadStoreFixture>): void {
  const t = suite<{ fx: ReadStoreFixture }>(`read store contract: ${label}`, {} as { fx: ReadStoreFixture });
  t.before(async (ctx) => {
    ctx.fx = await open();
    await ctx.fx.store.ensureCollections(specs);
    await ctx.fx.store.ensureCollections(specs); // idempotent
  });
  t.after(async (ctx) => {
    await ctx.fx?.close();
  });

  t('upsert, get, getMany, delete within a partition', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('contract_items', p, { id: 'a', day: '2026-01-01', group: 'g', n: 1, nested: { x: [1, 'two'] } });
    await fx.store.upsert('contract_items', p, { id: 'b', day: '2026-01-02', group: 'g', n: 2 });
    await fx.store.upsert('contract_items', p, { id: 'a', day: '2026-01-03', group: 'g', n: 3 });
    assert.equal(await fx.store.get('contract_items', p, 'a'), { id: 'a', day: '2026-01-03', group: 'g', n: 3 });
    assert.is(await fx.store.get('contract_items', randomUUID(), 'a'), null);
    assert.equal((await fx.store.getMany<Item>('contract_items', p, ['b', 'zz', 'a'])).map((d) => d.id), ['b', 'a']);
    await fx.store.delete('contract_items', p, 'a');
    assert.is(await fx.store.get('contract_items', p, 'a'), null);
    assert.is(await fx.store.count('contract_items', p), 1);
  });

  t('partitions do not see each other', async ({ fx }) => {
    const p1 = randomUUID();
    const p2 = randomUUID();
    await fx.store.upsert('contract_items', p1, { id: 'same', day: '2026-01-01', group: 'g', n: 1 });
    await fx.store.upsert('contract_items', p2, { id: 'same', day: '2026-01-02', group: 'g', n: 2 });
    const page = await fx.store.page<Item>('contract_items', { partition: p1, index: 'by_day', direction: 'asc', limit: 10 });
    assert.equal(page.map((d) => d.n), [1]);
  });

  t('keyset pages walk an index in both directions without gaps or repeats', async ({ fx }) => {
    const p = randomUUID();
    const days = ['2026-01-03', '2026-01-01', '2026-01-02', '2026-01-02', '2026-01-05', '2026-01-04', '2026-01-02'];
    for (const [i, day] of days.entries()) await fx.store.upsert('contract_items', p, { id: `id${i}`, day, group: 'g', n: i });
    const expectedAsc = days
      .map((day, i) => ({ day, id: `id${i}` }))
      .sort((a, b) => (a.day === b.day ? (a.id < b.id ? -1 : 1) : a.day < b.day ? -1 : 1))
      .map((d) => d.id);
    for (const direction of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let after: [string, string] | undefined;
      for (;;) {
        const page = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', direction, limit: 3, ...(after ? { after } : {}) });
        if (page.length === 0) break;
        seen.push(...page.map((d) => d.id));
        const last = page[page.length - 1]!;
        after = [last.day, last.id];
      }
      assert.equal(seen, direction === 'asc' ? expectedAsc : [...expectedAsc].reverse());
    }
  });

  t('prefix and range narrow a page', async ({ fx }) => {
    const p = randomUUID();
    for (let i = 0; i < 6; i++) await fx.store.upsert('contract_items', p, { id: `x${i}`, day: `2026-02-0${i + 1}`, group: i % 2 ? 'odd' : 'even', n: i });
    const odd = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_group', prefix: ['odd'], direction: 'desc', limit: 10 });
    assert.equal(odd.map((d) => d.n), [5, 3, 1]);
    const oddFrom2 = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_group', prefix: ['odd'], range: { gte: 2, lte: 4 }, direction: 'asc', limit: 10 });
    assert.equal(oddFrom2.map((d) => d.n), [3]);
    const days = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', range: { gte: '2026-02-02', lte: '2026-02-04' }, direction: 'asc', limit: 2 });
    assert.equal(days.map((d) => d.day), ['2026-02-02', '2026-02-03']);
    const next = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', range: { gte: '2026-02-02', lte: '2026-02-04' }, direction: 'asc', limit: 2, after: [days[1]!.day, days[1]!.id] });
    assert.equal(next.map((d) => d.day), ['2026-02-04']);
    assert.is(await fx.store.deleteWhere('contract_items', p, 'by_group', ['even']), 3);
    assert.is(await fx.store.count('contract_items', p), 3);
  });

  t('a transaction commits all of its writes or, when it throws, none', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.transaction(async (docs) => {
      await docs.upsert('contract_items', p, { id: 't1', day: '2026-03-01', group: 'g', n: 1 });
      await docs.upsert('contract_other', p, { id: 't1' });
      assert.ok(await docs.get('contract_items', p, 't1'), 'a transaction reads its own writes');
    });
    try {
      await fx.store.transaction(async (docs) => {
        await docs.upsert('contract_items', p, { id: 't2', day: '2026-03-02', group: 'g', n: 2 });
        await docs.delete('contract_items', p, 't1');
        throw new Error('abort');
      });
      assert.unreachable();
    } catch (error) {
      assert.is((error as Error).message, 'abort');
    }
    assert.ok(await fx.store.get('contract_items', p, 't1'));
    assert.is(await fx.store.get('contract_items', p, 't2'), null);
  });

  t('a rebuild writes beside the live collection and replaces it on swap', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('contract_items', p, { id: 'old', day: '2026-04-01', group: 'g', n: 1 });
    const rebuild = await fx.store.beginRebuild([specs[0]!]);
    await rebuild.transaction(async (docs) => {
      await docs.upsert('contract_items', p, { id: 'new', day: '2026-04-02', group: 'g', n: 2 });
      assert.is(await docs.get('contract_items', p, 'old'), null, 'the fresh collection starts empty');
      await docs.upsert('contract_other', p, { id: 'live-write' });
    });
    assert.ok(await fx.store.get('contract_items', p, 'old'), 'live data is untouched before the swap');
    assert.is(await fx.store.get('contract_items', p, 'new'), null);
    await rebuild.swap(async (live) => live.upsert('contract_other', p, { id: 'in-swap' }));
    assert.is(await fx.store.get('contract_items', p, 'old'), null);
    assert.ok(await fx.store.get('contract_items', p, 'new'));
    assert.ok(await fx.store.get('contract_other', p, 'live-write'), 'collections not rebuilt stay live');
    assert.ok(await fx.store.get('contract_other', p, 'in-swap'));
    const page = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', direction: 'asc', limit: 5 });
    assert.equal(page.map((d) => d.id), ['new'], 'indexes work after the swap');

    const discarded = await fx.store.beginRebuild([specs[0]!]);
    await discarded.transaction((docs) => docs.upsert('contract_items', p, { id: 'never', day: '2026-04-03', group: 'g', n: 3 }));
    await discarded.discard();
    assert.is(await fx.store.get('contract_items', p, 'never'), null);
    assert.ok(await fx.store.get('contract_items', p, 'new'));
  });

  t('dump lists every document of a collection', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('contract_other', p, { id: 'b' });
    await fx.store.upsert('contract_other', p, { id: 'a' });
    const mine = (await fx.store.dump('contract_other')).filter((r) => r.partition === p);
    assert.equal(mine.map((r) => r.doc.id), ['a', 'b']);
  });

  t.run();
}
