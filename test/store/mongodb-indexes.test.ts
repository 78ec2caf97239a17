// How the MongoDB adapter brings an index to its declared fields after a release changed it,
// without a server: a collection that keeps an index catalog and refuses index builds with the
// server's error codes and messages, as the driver's own MongoServerError.
import { MongoServerError, type Document } from 'mongodb';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureIndex, type IndexedCollection } from '../../services/store/mongodb/read-store.ts';

interface Index {
  name: string;
  key: Document;
}

/** MongoDB's rules for createIndex and dropIndex on one collection's catalog. */
class Catalog implements IndexedCollection {
  indexes: Index[] = [{ name: '_id_', key: { _id: 1 } }];
  dropped: string[] = [];

  async createIndex(keyMap: Map<string, 1>, { name }: { name: string }): Promise<string> {
    const key = Object.fromEntries(keyMap);
    const same = (k: Document) => JSON.stringify(k) === JSON.stringify(key);
    const byName = this.indexes.find((i) => i.name === name);
    if (byName && same(byName.key)) return name; // already there: a no-op
    if (byName) {
      throw new MongoServerError({
        ok: 0,
        code: 86,
        codeName: 'IndexKeySpecsConflict',
        errmsg: `An existing index has the same name as the requested index. Requested index: { v: 2, key: ${JSON.stringify(key)}, name: "${name}" }, existing index: { v: 2, key: ${JSON.stringify(byName.key)}, name: "${name}" }`,
      });
    }
    const byKey = this.indexes.find((i) => same(i.key));
    if (byKey) {
      throw new MongoServerError({ ok: 0, code: 85, codeName: 'IndexOptionsConflict', errmsg: `Index already exists with a different name: ${byKey.name}` });
    }
    this.indexes.push({ name, key });
    return name;
  }

  async dropIndex(name: string): Promise<unknown> {
    if (!this.indexes.some((i) => i.name === name)) {
      throw new MongoServerError({ ok: 0, code: 27, codeName: 'IndexNotFound', errmsg: `index not found with name [${name}]` });
    }
    this.indexes = this.indexes.filter((i) => i.name !== name);
    this.dropped.push(name);
    return { ok: 1 };
  }

  listIndexes(): { toArray(): Promise<Document[]> } {
    return { toArray: async () => this.indexes.map((i) => ({ v: 2, ...i })) };
  }
}

const DAY_KEY = { partition: 1, 'doc.day': 1, 'doc.id': 1 };

test('an index renamed by a release (error 85: same fields, other name) replaces the old one', async () => {
  const coll = new Catalog();
  coll.indexes.push({ name: 'by_date', key: DAY_KEY }, { name: 'by_group', key: { partition: 1, 'doc.group': 1 } });
  await ensureIndex(coll, 'by_day', ['day', 'id']);
  assert.equal(coll.dropped, ['by_date']);
  assert.equal(coll.indexes.map((i) => i.name), ['_id_', 'by_group', 'by_day']);
  assert.equal(coll.indexes.find((i) => i.name === 'by_day')!.key, DAY_KEY);
});

test('an index whose fields changed under the same name (error 86) is rebuilt', async () => {
  const coll = new Catalog();
  coll.indexes.push({ name: 'by_day', key: { partition: 1, 'doc.day': 1 } });
  await ensureIndex(coll, 'by_day', ['day', 'id']);
  assert.equal(coll.dropped, ['by_day']);
  assert.equal(coll.indexes.find((i) => i.name === 'by_day')!.key, DAY_KEY);
});

test('both at once: the old name on other fields, and the new fields under a third name', async () => {
  const coll = new Catalog();
  coll.indexes.push({ name: 'by_day', key: { partition: 1, 'doc.day': 1 } }, { name: 'legacy', key: DAY_KEY });
  await ensureIndex(coll, 'by_day', ['day', 'id']);
  assert.equal([...coll.dropped].sort(), ['by_day', 'legacy']);
  assert.equal(coll.indexes.map((i) => i.name), ['_id_', 'by_day']);
});

test('an index already as declared is left alone, and other errors are not swallowed', async () => {
  const coll = new Catalog();
  coll.indexes.push({ name: 'by_day', key: DAY_KEY });
  await ensureIndex(coll, 'by_day', ['day', 'id']);
  assert.equal(coll.dropped, []);
  const failing: IndexedCollection = {
    createIndex: async () => {
      throw new MongoServerError({ ok: 0, code: 13, codeName: 'Unauthorized', errmsg: 'not authorized' });
    },
    dropIndex: async () => assert.unreachable('nothing to drop'),
    listIndexes: () => ({ toArray: async () => [] }),
  };
  try {
    await ensureIndex(failing, 'by_day', ['day', 'id']);
    assert.unreachable();
  } catch (error) {
    assert.is((error as MongoServerError).code, 13);
  }
});

test.run();
