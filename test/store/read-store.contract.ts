// The behaviour every ReadStore adapter must show.
import { randomUUID } from 'node:crypto';
import { serverSuite } from './container-runtime.ts';
import * as assert from 'uvu/assert';
import type { CollectionSpec, Doc, Documents, ReadStore } from '../../services/store/read-store.ts';

export interface ReadStoreFixture {
  store: ReadStore;
  close(): Promise<void>;
}

const specs: CollectionSpec[] = [
  {
    name: 'contract_items',
    indexes: [
      { name: 'by_day', fields: ['day', 'id'] },
      { name: 'by_group', fields: ['group', 'n', 'id'] },
    ],
  },
  { name: 'contract_other', indexes: [] },
];

interface Item extends Doc {
  day: string;
  group: string;
  n: number;
}

export function readStoreContract(label: string, open: () => Promise<ReadStoreFixture>, skipped: string | null = null): void {
  const t = serverSuite<{ fx: ReadStoreFixture }>(`read store contract: ${label}`, skipped, {} as { fx: ReadStoreFixture });
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
    assert.equal(
      (await fx.store.getMany<Item>('contract_items', p, ['b', 'zz', 'a'])).map((d) => d.id),
      ['b', 'a'],
    );
    await fx.store.delete('contract_items', p, 'a');
    assert.is(await fx.store.get('contract_items', p, 'a'), null);
    assert.is(await fx.store.count('contract_items', p), 1);
  });

  t('writeMany, on a store that has it (MongoDB): upserts and deletes in order, in a transaction, rolled back with it', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.transaction(async (docs) => {
      if (!docs.writeMany) return;
      await docs.writeMany('contract_items', [
        { partition: p, doc: { id: 'a', day: '2026-01-01', group: 'g', n: 1 } },
        { partition: p, doc: { id: 'b', day: '2026-01-02', group: 'g', n: 2 } },
        { partition: p, deleted: 'a' },
        { partition: p, doc: { id: 'a', day: '2026-01-03', group: 'g', n: 3 } },
        { partition: p, deleted: 'b' },
      ]);
    });
    if (!(await fx.store.transaction(async (docs) => docs.writeMany !== undefined))) return;
    assert.equal(await fx.store.getMany('contract_items', p, ['a', 'b']), [{ id: 'a', day: '2026-01-03', group: 'g', n: 3 }]);
    try {
      await fx.store.transaction(async (docs) => {
        await docs.writeMany!('contract_items', [
          { partition: p, deleted: 'a' },
          { partition: p, doc: { id: 'c', day: '2026-01-04', group: 'g', n: 4 } },
        ]);
        throw new Error('rolled back');
      });
    } catch (error) {
      assert.is((error as Error).message, 'rolled back');
    }
    assert.equal(
      (await fx.store.getMany('contract_items', p, ['a', 'c'])).map((d) => d.id),
      ['a'],
    );
  });

  t('partitions do not see each other', async ({ fx }) => {
    const p1 = randomUUID();
    const p2 = randomUUID();
    await fx.store.upsert('contract_items', p1, { id: 'same', day: '2026-01-01', group: 'g', n: 1 });
    await fx.store.upsert('contract_items', p2, { id: 'same', day: '2026-01-02', group: 'g', n: 2 });
    const page = await fx.store.page<Item>('contract_items', { partition: p1, index: 'by_day', direction: 'asc', limit: 10 });
    assert.equal(
      page.map((d) => d.n),
      [1],
    );
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
    assert.equal(
      odd.map((d) => d.n),
      [5, 3, 1],
    );
    const oddFrom2 = await fx.store.page<Item>('contract_items', {
      partition: p,
      index: 'by_group',
      prefix: ['odd'],
      range: { gte: 2, lte: 4 },
      direction: 'asc',
      limit: 10,
    });
    assert.equal(
      oddFrom2.map((d) => d.n),
      [3],
    );
    const days = await fx.store.page<Item>('contract_items', {
      partition: p,
      index: 'by_day',
      range: { gte: '2026-02-02', lte: '2026-02-04' },
      direction: 'asc',
      limit: 2,
    });
    assert.equal(
      days.map((d) => d.day),
      ['2026-02-02', '2026-02-03'],
    );
    const next = await fx.store.page<Item>('contract_items', {
      partition: p,
      index: 'by_day',
      range: { gte: '2026-02-02', lte: '2026-02-04' },
      direction: 'asc',
      limit: 2,
      after: [days[1]!.day, days[1]!.id],
    });
    assert.equal(
      next.map((d) => d.day),
      ['2026-02-04'],
    );
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
    }, 1);
    assert.ok(await fx.store.get('contract_items', p, 'old'), 'live data is untouched before the swap');
    assert.is(await fx.store.get('contract_items', p, 'new'), null);
    await rebuild.swap(async (live) => live.upsert('contract_other', p, { id: 'in-swap' }));
    assert.is(await fx.store.get('contract_items', p, 'old'), null);
    assert.ok(await fx.store.get('contract_items', p, 'new'));
    assert.ok(await fx.store.get('contract_other', p, 'live-write'), 'collections not rebuilt stay live');
    assert.ok(await fx.store.get('contract_other', p, 'in-swap'));
    const page = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', direction: 'asc', limit: 5 });
    assert.equal(
      page.map((d) => d.id),
      ['new'],
      'indexes work after the swap',
    );

    const discarded = await fx.store.beginRebuild([specs[0]!]);
    await discarded.transaction((docs) => docs.upsert('contract_items', p, { id: 'never', day: '2026-04-03', group: 'g', n: 3 }), 1);
    await discarded.discard();
    assert.is(await fx.store.get('contract_items', p, 'never'), null);
    assert.ok(await fx.store.get('contract_items', p, 'new'));
  });

  t('prefix with after walks the rest of the index in both directions', async ({ fx }) => {
    const p = randomUUID();
    // Two groups interleaved, repeated values of n inside a group: ids break the ties.
    const docs = Array.from({ length: 11 }, (_, i) => ({ id: `k${String(i).padStart(2, '0')}`, day: '2026-05-01', group: i % 2 ? 'odd' : 'even', n: i % 4 }));
    for (const d of docs) await fx.store.upsert('contract_items', p, d);
    const odd = docs
      .filter((d) => d.group === 'odd')
      .sort((a, b) => a.n - b.n || (a.id < b.id ? -1 : 1))
      .map((d) => d.id);
    for (const direction of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let after: [number, string] | undefined;
      for (;;) {
        const page = await fx.store.page<Item>('contract_items', {
          partition: p,
          index: 'by_group',
          prefix: ['odd'],
          direction,
          limit: 2,
          ...(after ? { after } : {}),
        });
        if (page.length === 0) break;
        seen.push(...page.map((d) => d.id));
        after = [page[page.length - 1]!.n, page[page.length - 1]!.id];
      }
      assert.equal(seen, direction === 'asc' ? odd : [...odd].reverse(), direction);
    }
  });

  t('null and missing index values sort before every other value and are paged through', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('contract_items', p, { id: 'a', day: '2026-06-02', group: 'g', n: 1 });
    await fx.store.upsert('contract_items', p, { id: 'b', day: null, group: 'g', n: 2 });
    await fx.store.upsert('contract_items', p, { id: 'c', group: 'g', n: 3 }); // no `day` at all
    await fx.store.upsert('contract_items', p, { id: 'd', day: '2026-06-01', group: 'g', n: 4 });
    await fx.store.upsert('contract_items', p, { id: 'e', day: null, group: 'g', n: 5 });
    const asc = ['b', 'c', 'e', 'd', 'a'];
    for (const direction of ['asc', 'desc'] as const) {
      for (const limit of [1, 2, 3, 10]) {
        const seen: string[] = [];
        let after: [string | null, string] | undefined;
        for (;;) {
          const page = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', direction, limit, ...(after ? { after } : {}) });
          if (page.length === 0) break;
          seen.push(...page.map((d) => d.id));
          const last = page[page.length - 1]! as Item & { day?: string | null };
          after = [last.day ?? null, last.id];
        }
        assert.equal(seen, direction === 'asc' ? asc : [...asc].reverse(), `${direction}, ${limit} a page`);
      }
    }
    // A range never holds null; a null prefix matches null and missing alike.
    const ranged = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', range: { lte: '2026-06-01' }, direction: 'asc', limit: 10 });
    assert.equal(
      ranged.map((d) => d.id),
      ['d'],
    );
    const undated = await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', prefix: [null], direction: 'desc', limit: 10 });
    assert.equal(
      undated.map((d) => d.id),
      ['e', 'c', 'b'],
    );
    assert.is(await fx.store.deleteWhere('contract_items', p, 'by_day', [null]), 3);
    assert.equal(
      (await fx.store.dump('contract_items')).filter((r) => r.partition === p).map((r) => r.doc.id),
      ['a', 'd'],
    );
  });

  t('an index whose fields or name change between starts serves the new order', async ({ fx }) => {
    const p = randomUUID();
    const before: CollectionSpec = {
      name: 'contract_changing',
      indexes: [
        { name: 'by_x', fields: ['x', 'id'] },
        { name: 'by_y', fields: ['y', 'id'] },
      ],
    };
    // A release reorders by_x and renames by_y (same fields) to by_y2.
    const after: CollectionSpec = {
      name: 'contract_changing',
      indexes: [
        { name: 'by_x', fields: ['y', 'x', 'id'] },
        { name: 'by_y2', fields: ['y', 'id'] },
      ],
    };
    await fx.store.ensureCollections([before]);
    for (const [id, x, y] of [
      ['p', 1, 'b'],
      ['q', 2, 'a'],
      ['r', 3, 'b'],
    ] as const)
      await fx.store.upsert('contract_changing', p, { id, x, y });
    const xs = async () =>
      (await fx.store.page<Doc & { x: number }>('contract_changing', { partition: p, index: 'by_x', direction: 'asc', limit: 10 })).map((d) => d.id);
    assert.equal(await xs(), ['p', 'q', 'r']);
    await fx.store.ensureCollections([after]);
    await fx.store.ensureCollections([after]); // and again, as every later start does
    assert.equal(await xs(), ['q', 'p', 'r']);
    const ys = await fx.store.page('contract_changing', { partition: p, index: 'by_y2', prefix: ['b'], direction: 'desc', limit: 10 });
    assert.equal(
      ys.map((d) => d.id),
      ['r', 'p'],
    );
    try {
      await fx.store.page('contract_changing', { partition: p, index: 'by_y', direction: 'asc', limit: 10 });
      assert.unreachable('the old index name is gone');
    } catch (error) {
      assert.match(String(error), 'no index by_y');
    }
  });

  t('concurrent transactions on the same document lose no update', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('contract_other', p, { id: 'counter', n: 0 });
    const increment = () =>
      fx.store.transaction(async (docs) => {
        const doc = (await docs.get<Doc & { n: number }>('contract_other', p, 'counter'))!;
        await new Promise((r) => setTimeout(r, 2)); // hold the read across a turn of the event loop
        await docs.upsert('contract_other', p, { ...doc, n: doc.n + 1 });
      });
    await Promise.all(Array.from({ length: 12 }, increment));
    assert.is((await fx.store.get<Doc & { n: number }>('contract_other', p, 'counter'))!.n, 12);
  });

  t('a swap finishes from the position its collections were rebuilt to, while another writer commits', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('contract_other', p, { id: 'counter', n: 0 });
    const rebuild = await fx.store.beginRebuild([specs[0]!]);
    await rebuild.transaction((docs) => docs.upsert('contract_items', p, { id: 'r1', day: '2026-07-01', group: 'g', n: 1 }), 41);
    await rebuild.transaction((docs) => docs.upsert('contract_items', p, { id: 'r2', day: '2026-07-02', group: 'g', n: 2 }), 42);
    const increment = (docs: Documents) =>
      docs.get<Doc & { n: number }>('contract_other', p, 'counter').then((doc) => docs.upsert('contract_other', p, { ...doc!, n: doc!.n + 1 }));
    let writing = true;
    let written = 0;
    // Another process's projection transactions, on a collection that is not being rebuilt.
    const writer = (async () => {
      while (writing || written < 3) {
        await fx.store.transaction(increment);
        written++;
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    await new Promise((r) => setTimeout(r, 5));
    const from: number[] = [];
    await rebuild.swap(async (live, position) => {
      from.push(position);
      await increment(live);
    });
    writing = false;
    await writer;
    assert.ok(from.length >= 1 && from.every((f) => f === 42), `finish ran from ${from.join(', ')}`);
    assert.is((await fx.store.get<Doc & { n: number }>('contract_other', p, 'counter'))!.n, written + 1, 'no increment lost');
    assert.equal(
      (await fx.store.page<Item>('contract_items', { partition: p, index: 'by_day', direction: 'asc', limit: 10 })).map((d) => d.id),
      ['r1', 'r2'],
    );
  });

  t('dump lists every document of a collection', async ({ fx }) => {
    const p = randomUUID();
    await fx.store.upsert('contract_other', p, { id: 'b' });
    await fx.store.upsert('contract_other', p, { id: 'a' });
    const mine = (await fx.store.dump('contract_other')).filter((r) => r.partition === p);
    assert.equal(
      mine.map((r) => r.doc.id),
      ['a', 'b'],
    );
  });

  t('a dropped collection is gone with its documents and indexes; dropping one that is not there does nothing', async ({ fx }) => {
    const p = randomUUID();
    const retired: CollectionSpec = { name: 'contract_retired', indexes: [{ name: 'by_day', fields: ['day', 'id'] }] };
    await fx.store.ensureCollections([retired]);
    await fx.store.upsert('contract_retired', p, { id: 'a', day: '2026-01-01' });
    await fx.store.dropCollections(['contract_retired', 'contract_never_made']);
    await fx.store.dropCollections(['contract_retired']);
    // Made again, it starts empty.
    await fx.store.ensureCollections([retired]);
    assert.is(await fx.store.count('contract_retired'), 0);
    assert.equal(await fx.store.page('contract_retired', { partition: p, index: 'by_day', direction: 'asc', limit: 5 }), []);
    await fx.store.upsert('contract_items', p, { id: 'kept', day: '2026-01-01', group: 'g', n: 1 });
    await fx.store.dropCollections(['contract_retired']);
    assert.ok(await fx.store.get('contract_items', p, 'kept'), 'other collections untouched');
  });

  t('deleteOwned: the owner’s partition and documents naming them anywhere, nothing else', async ({ fx }) => {
    const owner = randomUUID();
    const other = randomUUID();
    const shared = `shared-${randomUUID()}`;
    await fx.store.upsert('contract_items', owner, { id: 'a', day: '2026-01-01', group: 'g', n: 1 });
    await fx.store.upsert('contract_items', owner, { id: 'b', day: '2026-01-02', group: 'g', n: 2 });
    await fx.store.upsert('contract_items', shared, { id: 'named', day: '2026-01-01', group: 'g', n: 3, who: { athlete: owner } });
    await fx.store.upsert('contract_items', shared, { id: 'kept', day: '2026-01-01', group: 'g', n: 4, who: { athlete: other } });
    await fx.store.upsert('contract_items', other, { id: 'a', day: '2026-01-01', group: 'g', n: 5 });
    assert.is(await fx.store.deleteOwned('contract_items', owner), 2, 'the partition alone');
    assert.is((await fx.store.get('contract_items', shared, 'named')) !== null, true);
    assert.is(await fx.store.deleteOwned('contract_items', owner, 'who.athlete'), 1, 'and by the field');
    assert.is(await fx.store.get('contract_items', owner, 'a'), null);
    assert.is(await fx.store.get('contract_items', shared, 'named'), null);
    assert.is((await fx.store.get('contract_items', shared, 'kept'))?.n, 4);
    assert.is((await fx.store.get('contract_items', other, 'a'))?.n, 5);
  });

  t.run();
}
