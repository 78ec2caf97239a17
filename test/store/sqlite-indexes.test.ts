// An index whose declaration changes between releases is rebuilt on the embedded store: pages are
// forced onto an index by name (INDEXED BY), so a stale definition would sort every match.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import type { PageQuery } from '../../services/store/read-store.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { tempDir } from '../support/app.ts';

test('changed fields rebuild an index, a renamed or removed one is dropped, an unchanged one is kept', async () => {
  const db = openSqlite(join(tempDir(), 'repledger.db'));
  const store = new SqliteReadStore(db);
  const indexes = () =>
    Object.fromEntries(
      (
        db.reader
          .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_things' AND sql IS NOT NULL ORDER BY name`)
          .all() as Array<{ name: string; sql: string }>
      ).map((r) => [r.name, r.sql.replace(/^.* ON rm_things /, '')]),
    );
  try {
    await store.ensureCollections([
      {
        name: 'things',
        indexes: [
          { name: 'by_x', fields: ['x', 'id'] },
          { name: 'by_y', fields: ['y', 'id'] },
          { name: 'by_z', fields: ['z', 'id'] },
        ],
      },
    ]);
    const keptRowid = (db.reader.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'rm_things__ix_by_z'`).get() as { rootpage: number }).rootpage;
    await store.ensureCollections([
      {
        name: 'things',
        indexes: [
          { name: 'by_x', fields: ['y', 'x', 'id'] },
          { name: 'by_y2', fields: ['y', 'id'] },
          { name: 'by_z', fields: ['z', 'id'] },
        ],
      },
    ]);
    assert.equal(indexes(), {
      rm_things__ix_by_x: "(partition, json_extract(doc, '$.y'), json_extract(doc, '$.x'), id)",
      rm_things__ix_by_y2: "(partition, json_extract(doc, '$.y'), id)",
      rm_things__ix_by_z: "(partition, json_extract(doc, '$.z'), id)",
    });
    assert.is(
      (db.reader.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'rm_things__ix_by_z'`).get() as { rootpage: number }).rootpage,
      keptRowid,
      'an unchanged index is not rebuilt',
    );
    const plan = db.reader
      .prepare(
        `EXPLAIN QUERY PLAN SELECT doc FROM rm_things INDEXED BY rm_things__ix_by_x WHERE partition = ? ORDER BY json_extract(doc, '$.y'), json_extract(doc, '$.x'), id LIMIT 5`,
      )
      .all('p') as Array<{ detail: string }>;
    assert.not.ok(
      plan.some((r) => r.detail.includes('TEMP B-TREE')),
      JSON.stringify(plan),
    );
  } finally {
    await store.close();
  }
});

test('an index of the id alone is the primary key: none is made (an old one is dropped), and pages walk the key', async () => {
  const db = openSqlite(join(tempDir(), 'repledger.db'));
  const store = new SqliteReadStore(db);
  const names = () =>
    (db.reader.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_things'`).all() as Array<{ name: string }>)
      .map((r) => r.name)
      .sort();
  try {
    // A store from before: the copy of the primary key was an index of its own.
    await store.ensureCollections([{ name: 'things', indexes: [{ name: 'by_x', fields: ['x', 'id'] }] }]);
    db.writer.exec(`CREATE INDEX rm_things__ix_by_id ON rm_things (partition, id)`);
    await store.ensureCollections([
      {
        name: 'things',
        indexes: [
          { name: 'by_id', fields: ['id'] },
          { name: 'by_x', fields: ['x', 'id'] },
        ],
      },
    ]);
    assert.equal(names(), ['rm_things__ix_by_x', 'sqlite_autoindex_rm_things_1']);
    await store.transaction(async (docs) => {
      for (const id of ['c', 'a', 'd', 'b']) await docs.upsert('things', 'p', { id, x: 1 });
      await docs.upsert('things', 'q', { id: 'a0', x: 1 });
    });
    const ids = async (query: Partial<PageQuery>) =>
      (await store.page('things', { partition: 'p', index: 'by_id', direction: 'asc', limit: 10, ...query })).map((d) => d.id);
    assert.equal(await ids({}), ['a', 'b', 'c', 'd']);
    assert.equal(await ids({ direction: 'desc', after: ['c'] }), ['b', 'a']);
    assert.equal(await ids({ direction: 'desc', range: { lte: 'c' }, limit: 1 }), ['c']);
    const plan = db.reader
      .prepare(`EXPLAIN QUERY PLAN SELECT doc FROM rm_things WHERE partition = ? AND id < ? ORDER BY id DESC LIMIT 5`)
      .all('p', 'c') as Array<{ detail: string }>;
    assert.ok(plan.some((r) => r.detail.includes('sqlite_autoindex_rm_things_1')) && !plan.some((r) => r.detail.includes('TEMP B-TREE')), JSON.stringify(plan));
  } finally {
    await store.close();
  }
});

test.run();
