// How the MongoDB adapter brings an index to its declared fields after a release changed it,
// also when several processes start at once and do it on the same catalog, without a server: a
// collection that keeps an index catalog and refuses index builds and drops with the server's
// error codes and messages, as the driver's own MongoServerError.
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

  /** By name, or by key pattern: `dropped` records the name either way. */
  async dropIndex(index: string | Document): Promise<unknown> {
    const found = this.indexes.find((i) => (typeof index === 'string' ? i.name === index : JSON.stringify(i.key) === JSON.stringify(index)));
    if (!found) {
      const errmsg = typeof index === 'string' ? `index not found with name [${index}]` : `can't find index with key: ${JSON.stringify(index)}`;
      throw new MongoServerError({ ok: 0, code: 27, codeName: 'IndexNotFound', errmsg });
    }
    this.indexes = this.indexes.filter((i) => i !== found);
    this.dropped.push(found.name);
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
  assert.equal(
    coll.indexes.map((i) => i.name),
    ['_id_', 'by_group', 'by_day'],
  );
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
  assert.equal(
    coll.indexes.map((i) => i.name),
    ['_id_', 'by_day'],
  );
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

/**
 * A catalog shared with another process starting at the same moment: once this process has
 * listed the indexes, the other one runs its whole `ensureIndex` before this one goes on.
 */
class Raced extends Catalog {
  other: (() => Promise<void>) | null = null;

  override listIndexes(): { toArray(): Promise<Document[]> } {
    return {
      toArray: async () => {
        const listing = await super.listIndexes().toArray();
        const other = this.other;
        this.other = null;
        await other?.();
        return listing;
      },
    };
  }
}

test('a renamed index that another start dropped first (error 27 on our drop) counts as dropped', async () => {
  const coll = new Raced();
  coll.indexes.push({ name: 'by_date', key: DAY_KEY });
  coll.other = () => ensureIndex(coll, 'by_day', ['day', 'id']);
  await ensureIndex(coll, 'by_day', ['day', 'id']);
  assert.equal(coll.dropped, ['by_date'], 'dropped once, by the other start');
  assert.equal(coll.indexes, [coll.indexes[0]!, { name: 'by_day', key: DAY_KEY }]);
});

test('an index whose fields changed, rebuilt by another start meanwhile, is not dropped again', async () => {
  const coll = new Raced();
  coll.indexes.push({ name: 'by_day', key: { partition: 1, 'doc.day': 1 } });
  coll.other = () => ensureIndex(coll, 'by_day', ['day', 'id']);
  await ensureIndex(coll, 'by_day', ['day', 'id']);
  // Dropped by name, the other start's new index would go too (and its build be aborted).
  assert.equal(coll.dropped, ['by_day'], 'only the old index was dropped');
  assert.equal(coll.indexes.find((i) => i.name === 'by_day')!.key, DAY_KEY);
});

test('starts at once bring a catalog with both changes to the declared indexes', async () => {
  const coll = new Catalog();
  coll.indexes.push({ name: 'by_day', key: { partition: 1, 'doc.day': 1 } }, { name: 'legacy', key: { partition: 1, 'doc.group': 1 } });
  const start = async () => {
    await ensureIndex(coll, 'by_day', ['day', 'id']);
    await ensureIndex(coll, 'by_group', ['group']);
  };
  await Promise.all([start(), start(), start()]);
  assert.equal(coll.indexes.map((i) => i.name).sort(), ['_id_', 'by_day', 'by_group']);
  assert.equal(coll.indexes.find((i) => i.name === 'by_day')!.key, DAY_KEY);
});

const conflict = () =>
  new MongoServerError({ ok: 0, code: 85, codeName: 'IndexOptionsConflict', errmsg: 'Index already exists with a different name: by_date' });

/** Conflicts on every create; lists `listings` one after another; drops whatever it is asked to. */
function scripted(listings: Document[][], dropError?: MongoServerError): IndexedCollection {
  return {
    createIndex: async () => {
      throw conflict();
    },
    dropIndex: async () => {
      if (dropError) throw dropError;
    },
    listIndexes: () => ({ toArray: async () => listings.shift()! }),
  };
}

test('a create that conflicts again is accepted only if the declared index is there by then', async () => {
  const old = [{ name: 'by_date', key: DAY_KEY }];
  await ensureIndex(scripted([old, [{ name: 'by_day', key: DAY_KEY }]]), 'by_day', ['day', 'id']);
  for (const [listing, why] of [
    [[{ name: 'by_date', key: DAY_KEY }], 'the old index is back'],
    [[{ name: 'by_day', key: { partition: 1, 'doc.day': 1 } }], 'the name is on other fields'],
  ] as const) {
    try {
      await ensureIndex(scripted([old, [...listing]]), 'by_day', ['day', 'id']);
      assert.unreachable(why);
    } catch (error) {
      assert.is((error as MongoServerError).code, 85, why);
    }
  }
});

test('a drop that fails for another reason than a missing index is not swallowed', async () => {
  const unauthorized = new MongoServerError({ ok: 0, code: 13, codeName: 'Unauthorized', errmsg: 'not authorized' });
  try {
    await ensureIndex(scripted([[{ name: 'by_date', key: DAY_KEY }]], unauthorized), 'by_day', ['day', 'id']);
    assert.unreachable();
  } catch (error) {
    assert.is((error as MongoServerError).code, 13);
  }
});

test.run();
