import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { eventStoreContract } from './event-store.contract.ts';
import { readStoreContract } from './read-store.contract.ts';

function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), 'repledger-sqlite-'));
  const db = openSqlite(join(dir, 'repledger.db'));
  return {
    db,
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

eventStoreContract('sqlite', async () => {
  const { db, close } = tempDb();
  return { store: new SqliteEventStore(db), maxAppendBytes: null, close };
});

readStoreContract('sqlite', async () => {
  const { db, close } = tempDb();
  return { store: new SqliteReadStore(db), close };
});
