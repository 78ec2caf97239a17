// The import's write floor: its events appended and the read-model documents it ends with written,
// in one transaction (as the embedded store's import does), on a fresh store with the same
// collections and indexes. No file read, nothing parsed, decided or projected.
import { join } from 'node:path';
import type { StoredEvent } from '../services/store/event-store.ts';
import type { CollectionSpec, Doc } from '../services/store/read-store.ts';
import { openSqlite } from '../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../services/store/sqlite/event-store.ts';
import { SqliteReadStore } from '../services/store/sqlite/read-store.ts';

/** What an import writes: its events, and the read-model documents it ends with. */
export interface ImportWrites {
  specs: CollectionSpec[];
  events: Array<Pick<StoredEvent, 'type' | 'data' | 'metadata'>>;
  docs: Array<{ collection: string; partition: string; doc: Doc }>;
}

/**
 * Seconds to append and write `writes` to a new store in `dataDir`, its commit included. Opening
 * and closing the store are not timed: every command does both, and the import is measured beyond
 * the start of another command.
 */
export async function timeImportWrites(writes: ImportWrites, dataDir: string): Promise<number> {
  const db = openSqlite(join(dataDir, 'repledger.db'));
  try {
    const eventStore = new SqliteEventStore(db);
    const readStore = new SqliteReadStore(db);
    await readStore.ensureCollections(writes.specs);
    // Written inside the append's transaction, where inline projections write.
    eventStore.setOnAppended(async () => {
      for (const { collection, partition, doc } of writes.docs) await readStore.inTransaction.upsert(collection, partition, doc);
    });
    const started = performance.now();
    await eventStore.append('record-floor', writes.events, 'no_stream');
    return (performance.now() - started) / 1000;
  } finally {
    db.close();
  }
}
