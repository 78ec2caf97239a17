// An index whose declaration changes between releases is rebuilt on the embedded store: pages are
// forced onto an index by name (INDEXED BY), so a stale definition would sort every match.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { tempDir } from '../support/app.ts';

test('changed fields rebuild an index, a renamed or removed one is dropped, an unchanged one is kept', async () => {
  const db = openSqlite(join(tempDir(), 'repledger.db'));
  const store = new SqliteReadStore(db);
  const indexes = () =>
    Object.fromEntries(
      (db.reader.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_things' AND sql IS NOT NULL ORDER BY name`).all() as Array<{ name: string; sql: string }>).map(
        (r) => [r.name, r.sql.replace(/^.* ON rm_things /, '')],
      ),
    );
  try {
    await store.ensureCollections([{ name: 'things', indexes: [{ name: 'by_x', fields: ['x', 'id'] }, { name: 'by_y', fields: ['y', 'id'] }, { name: 'by_z', fields: ['z', 'id'] }] }]);
    const keptRowid = (db.reader.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'rm_things__ix_by_z'`).get() as { rootpage: number }).rootpage;
    await store.ensureCollections([{ name: 'things', indexes: [{ name: 'by_x', fields: ['y', 'x', 'id'] }, { name: 'by_y2', fields: ['y', 'id'] }, { name: 'by_z', fields: ['z', 'id'] }] }]);
    assert.equal(indexes(), {
      rm_things__ix_by_x: "(partition, json_extract(doc, '$.y'), json_extract(doc, '$.x'), id)",
      rm_things__ix_by_y2: "(partition, json_extract(doc, '$.y'), id)",
      rm_things__ix_by_z: "(partition, json_extract(doc, '$.z'), id)",
    });
    assert.is((db.reader.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'rm_things__ix_by_z'`).get() as { rootpage: number }).rootpage, keptRowid, 'an unchanged index is not rebuilt');
    const plan = db.reader
      .prepare(`EXPLAIN QUERY PLAN SELECT doc FROM rm_things INDEXED BY rm_things__ix_by_x WHERE partition = ? ORDER BY json_extract(doc, '$.y'), json_extract(doc, '$.x'), id LIMIT 5`)
      .all('p') as Array<{ detail: string }>;
    assert.not.ok(plan.some((r) => r.detail.includes('TEMP B-TREE')), JSON.stringify(plan));
  } finally {
    await store.close();
  }
});

test.run();
