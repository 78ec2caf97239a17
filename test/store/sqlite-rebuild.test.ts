// A replay killed midway leaves its rebuild tables; the next start drops them, but not the tables
// of a rebuild another live process is still running.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { tempDir } from '../support/app.ts';

const SPEC = [{ name: 'workouts', indexes: [{ name: 'by_id', fields: ['id'] }] }];

function rebuildTables(path: string): string[] {
  const db = openSqlite(path);
  try {
    return (db.reader.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '*__rebuild_*'`).all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
  } finally {
    db.close();
  }
}

test('the tables of a rebuild killed with SIGKILL are dropped at the next start; a live one is kept', async () => {
  const path = join(tempDir(), 'repledger.db');
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'support', 'begin-rebuild.ts'), path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  assert.match(line.toString(), 'begun');
  const live = new SqliteReadStore(openSqlite(path));
  try {
    await live.ensureCollections(SPEC);
    await live.beginRebuild(SPEC);
    assert.is(rebuildTables(path).length, 2, 'one rebuild per process, both running');

    child.kill('SIGKILL');
    await once(child, 'exit');
    await live.ensureCollections(SPEC);
    const left = rebuildTables(path);
    assert.is(left.length, 1);
    assert.match(left[0]!, `__rebuild_${process.pid}_`);
  } finally {
    await live.close();
  }
});

test.run();
