// The batch buffer projections write through (projections/batch-documents.ts) must be invisible:
// any sequence of reads and writes answers exactly as the store itself would, and leaves the store
// holding the same documents once flushed. Checked against a second store that takes the same
// operations directly.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchDocuments } from '../../projections/batch-documents.ts';
import type { CollectionSpec, Doc, Documents, DocumentWrite, KeyValue } from '../../services/store/read-store.ts';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';

const specs: CollectionSpec[] = [
  { name: 'batch_a', indexes: [{ name: 'by_group', fields: ['group', 'n', 'id'] }] },
  { name: 'batch_b', indexes: [{ name: 'by_group', fields: ['group', 'n', 'id'] }] },
];
const collection = fc.constantFrom('batch_a', 'batch_b');
const partition = fc.constantFrom('p1', 'p2');
const id = fc.constantFrom('a', 'b', 'c');
const group = fc.constantFrom('x', 'y');
const doc = fc.record({ id, group, n: fc.integer({ min: 0, max: 3 }), nested: fc.array(fc.nat(9), { maxLength: 2 }) }, { noNullPrototype: true });

const op = fc.oneof(
  fc.record({ op: fc.constant('get' as const), collection, partition, id }),
  fc.record({ op: fc.constant('getMany' as const), collection, partition, ids: fc.array(id, { maxLength: 4 }) }),
  fc.record({ op: fc.constant('upsert' as const), collection, partition, doc }),
  fc.record({ op: fc.constant('upsert' as const), collection, partition, doc }),
  fc.record({ op: fc.constant('delete' as const), collection, partition, id }),
  fc.record({ op: fc.constant('deleteWhere' as const), collection, partition, group }),
  fc.record({ op: fc.constant('page' as const), collection, partition, group, direction: fc.constantFrom('asc' as const, 'desc' as const) }),
  fc.record({ op: fc.constant('count' as const), collection, partition: fc.option(partition, { nil: undefined }) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

async function run(docs: Documents, o: Op): Promise<unknown> {
  switch (o.op) {
    case 'get':
      return docs.get(o.collection, o.partition, o.id);
    case 'getMany':
      return docs.getMany(o.collection, o.partition, o.ids);
    case 'upsert':
      return docs.upsert(o.collection, o.partition, o.doc);
    case 'delete':
      return docs.delete(o.collection, o.partition, o.id);
    case 'deleteWhere':
      return docs.deleteWhere(o.collection, o.partition, 'by_group', [o.group as KeyValue]);
    case 'page':
      return docs.page(o.collection, { partition: o.partition, index: 'by_group', prefix: [o.group], direction: o.direction, limit: 3 });
    case 'count':
      return docs.count(o.collection, o.partition);
  }
}

async function openStore(): Promise<SqliteReadStore> {
  const store = new SqliteReadStore(openSqlite(':memory:'));
  await store.ensureCollections(specs);
  return store;
}

async function contents(store: SqliteReadStore): Promise<Array<{ partition: string; doc: Doc }>> {
  return [...(await store.dump('batch_a')), ...(await store.dump('batch_b'))];
}

test('a batch answers every read as the store would and leaves the same documents', async () => {
  await fc.assert(
    // A limit of held-back writes as low as 1 flushes (and forgets) mid-batch; the default never does here.
    fc.asyncProperty(
      fc.array(op, { maxLength: 40 }),
      fc.array(op, { maxLength: 40 }),
      fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
      fc.boolean(),
      async (before, batchOps, maxDirty, bulk) => {
        const direct = await openStore();
        const buffered = await openStore();
        // The same documents in both before the batch, written straight to the store.
        for (const o of before.filter((x) => x.op === 'upsert')) {
          await run(direct, o);
          await run(buffered, o);
        }
        await buffered.transaction(async (docs) => {
          // Half the runs through a store with writeMany (as MongoDB's), made of its own writes one by one.
          const batch = new BatchDocuments(bulk ? withWriteMany(docs, () => undefined) : docs, maxDirty);
          for (const o of batchOps) assert.equal(await run(batch, o), await run(direct, o), JSON.stringify(o));
          await batch.flush();
        });
        assert.equal(await contents(buffered), await contents(direct));
      },
    ),
    { numRuns: 1000 },
  );
});

/** `docs` with a writeMany of its own writes, in order, telling `called` each time. */
function withWriteMany(docs: Documents, called: (collection: string, writes: DocumentWrite[]) => void): Documents {
  const writeMany = async (collection: string, writes: DocumentWrite[]) => {
    called(collection, writes);
    for (const w of writes) await ('doc' in w ? docs.upsert(collection, w.partition, w.doc) : docs.delete(collection, w.partition, w.deleted));
  };
  return new Proxy(docs, {
    get(target, key) {
      if (key === 'writeMany') return writeMany;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test("a store with writeMany is sent a batch's writes once per collection at the flush, not one by one", async () => {
  const store = await openStore();
  await store.upsert('batch_a', 'p1', { id: 'a', group: 'x', n: 1 });
  const calls: Array<[string, number]> = [];
  await store.transaction(async (docs) => {
    const batch = new BatchDocuments(withWriteMany(docs, (collection, writes) => calls.push([collection, writes.length])));
    for (const id of ['b', 'c', 'd']) await batch.upsert('batch_a', 'p1', { id, group: 'x', n: 2 });
    await batch.delete('batch_a', 'p1', 'a');
    await batch.upsert('batch_b', 'p2', { id: 'a', group: 'y', n: 3 });
    assert.equal(calls, []);
    await batch.flush();
  });
  assert.equal(calls, [
    ['batch_a', 4],
    ['batch_b', 1],
  ]);
  assert.equal(
    (await contents(store)).map((r) => r.doc.id),
    ['b', 'c', 'd', 'a'],
  );
});

test('what a deleteWhere removed is gone from the batch too, whether the batch wrote it or read it', async () => {
  const store = await openStore();
  await store.upsert('batch_a', 'p1', { id: 'a', group: 'x', n: 1 });
  await store.transaction(async (docs) => {
    const batch = new BatchDocuments(docs);
    await batch.get('batch_a', 'p1', 'a');
    await batch.upsert('batch_a', 'p1', { id: 'b', group: 'x', n: 2 });
    await batch.upsert('batch_a', 'p1', { id: 'c', group: 'y', n: 3 });
    assert.is(await batch.deleteWhere('batch_a', 'p1', 'by_group', ['x']), 2);
    assert.equal(await batch.getMany('batch_a', 'p1', ['a', 'b', 'c']), [{ id: 'c', group: 'y', n: 3 }]);
    await batch.flush();
  });
  assert.equal(await contents(store), [{ partition: 'p1', doc: { id: 'c', group: 'y', n: 3 } }]);
});

test('a document read through a batch cannot be changed in place', async () => {
  const store = await openStore();
  await store.upsert('batch_a', 'p1', { id: 'a', group: 'x', n: 1, nested: [1] });
  await store.transaction(async (docs) => {
    const batch = new BatchDocuments(docs);
    const read = (await batch.get<Doc & { nested: number[] }>('batch_a', 'p1', 'a'))!;
    assert.throws(() => read.nested.push(2), TypeError);
    assert.equal((await batch.get('batch_a', 'p1', 'a'))!.nested, [1]);
  });
});

test.run();
