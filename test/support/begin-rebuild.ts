// A process that begins a read-model rebuild and then waits to be killed, as a replay killed
// midway would leave things. Prints "begun" once its rebuild tables exist.
import { openSqlite } from '../../services/store/sqlite/database.ts';
import { SqliteReadStore } from '../../services/store/sqlite/read-store.ts';

const store = new SqliteReadStore(openSqlite(process.argv[2]!));
await store.beginRebuild([{ name: 'workouts', indexes: [{ name: 'by_id', fields: ['id'] }] }]);
console.log('begun');
setInterval(() => undefined, 60_000);
