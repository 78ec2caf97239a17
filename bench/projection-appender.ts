// The writer of `npm run bench -- projection` (bench/projection.ts), in a process of its own as a
// service's commands are: appends the events of EVENTS_FILE to the embedded store at DB_PATH, one
// append each, as fast as the store takes them, then prints how long that took.
import { readFileSync } from 'node:fs';
import type { NewEvent } from '../services/store/event-store.ts';
import { openSqlite } from '../services/store/sqlite/database.ts';
import { SqliteEventStore } from '../services/store/sqlite/event-store.ts';

const [dbPath, eventsFile] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile!, 'utf8')) as Array<NewEvent & { stream: string }>;
const db = openSqlite(dbPath!);
const store = new SqliteEventStore(db);
console.log('appending');
const started = performance.now();
for (const { stream, ...event } of events) await store.append(stream, [event], 'any');
console.log(`appended ${events.length} ${Math.round(performance.now() - started)}`);
db.close();
