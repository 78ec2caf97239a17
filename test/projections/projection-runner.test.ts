// The projection runner contract on the embedded store, projected by a runner as a worker does
// (not inline with each append).
import { join } from 'node:path';
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../../services/store/sqlite/event-store.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';
import { tempDir } from '../support/app.ts';
import { projectionRunnerContract } from './projection-runner.contract.ts';

projectionRunnerContract('sqlite', async () => {
  const db = openSqlite(join(tempDir(), 'repledger.db'));
  return { events: new SqliteEventStore(db), reads: new SqliteReadStore(db), close: async () => db.close() };
});
