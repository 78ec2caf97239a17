import { EventEmitter } from 'node:events';
import type { SQLInputValue } from 'node:sqlite';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type StoredEvent,
  type Subscription,
} from '../event-store.ts';
import { eraseFreedSpace, overwriting, statement, type SqliteDatabase } from './database.ts';

interface EventRow {
  position: number;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

function toStored(row: EventRow): StoredEvent {
  return {
    position: row.position,
    stream: row.stream,
    revision: row.revision,
    type: row.type,
    data: parseStored(row, row.data, 'data') as unknown,
    metadata: parseStored(row, row.metadata, 'metadata') as Record<string, unknown>,
  };
}

/** The service only ever writes JSON here: text that does not parse is a damaged store, said where. */
function parseStored(row: EventRow, text: string, column: 'data' | 'metadata'): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(
      `the store is damaged: the ${column} of event ${row.revision} of stream ${row.stream} (${row.type}, position ${row.position}) is not JSON (${(error as Error).message})`,
      { cause: error },
    );
  }
}

/** Called inside the append's transaction: embedded projections commit with the events. */
export type OnAppended = (events: StoredEvent[]) => Promise<void>;

/** How often a subscriber looks for events appended by another process. */
const POLL_MS = 250;

export class SqliteEventStore implements EventStore {
  readonly engine = 'sqlite';
  readonly #db: SqliteDatabase;
  readonly #appended = new EventEmitter();
  #onAppended: OnAppended | null = null;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    db.writer.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        stream   TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type     TEXT NOT NULL,
        data     TEXT NOT NULL,
        metadata TEXT NOT NULL,
        UNIQUE (stream, revision)
      )`);
    this.#appended.setMaxListeners(0);
  }

  setOnAppended(hook: OnAppended | null): void {
    this.#onAppended = hook;
  }

  /** This process's writers wait while `work` runs (see SqliteDatabase.hold): another connection of this process is writing. */
  holdWrites<T>(work: () => Promise<T>): Promise<T> {
    return this.#db.hold(work);
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const stored = await this.#db.write(async () => {
      const w = this.#db.writer;
      const head = statement(w, 'SELECT revision FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1').get(stream) as { revision: number } | undefined;
      const actual = head ? head.revision : 'no_stream';
      if (expected !== 'any' && expected !== actual) throw new WrongExpectedRevisionError(stream, expected, actual);
      const insert = statement(w, 'INSERT INTO events (stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?) RETURNING position');
      let revision = head ? head.revision : -1;
      const out: StoredEvent[] = [];
      for (const e of events) {
        revision++;
        const row = insert.get(stream, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)) as {
          position: number;
        };
        out.push({ position: row.position, stream, revision, type: e.type, data: e.data, metadata: e.metadata });
      }
      if (this.#onAppended) await this.#onAppended(out);
      return out;
    });
    this.#appended.emit('appended');
    const last = stored[stored.length - 1]!;
    return { revision: last.revision, position: last.position };
  }

  async readStream(stream: string, from = 0, limit?: number): Promise<StoredEvent[]> {
    // LIMIT -1 is SQLite's "no limit".
    return this.#query('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?', [stream, from, limit ?? -1]);
  }

  async readRevisions(stream: string, revisions: readonly number[]): Promise<StoredEvent[]> {
    if (revisions.length === 0) return [];
    // One statement for any number of revisions: a JSON array read as a table, not a list of `?`.
    return this.#query('SELECT * FROM events WHERE stream = ? AND revision IN (SELECT value FROM json_each(?)) ORDER BY revision', [
      stream,
      JSON.stringify(revisions),
    ]);
  }

  async streamRevision(stream: string): Promise<number | 'no_stream'> {
    const row = statement(this.#db.reader, 'SELECT MAX(revision) AS r FROM events WHERE stream = ?').get(stream) as { r: number | null };
    return row.r ?? 'no_stream';
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    return this.#query('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?', [after, limit]);
  }

  async headPosition(): Promise<number> {
    const row = statement(this.#db.reader, 'SELECT COALESCE(MAX(position), 0) AS p FROM events').get() as { p: number };
    return row.p;
  }

  subscribeAll(after: number, handler: (event: StoredEvent) => Promise<void>, onError: (error: unknown) => void): Subscription {
    let position = after;
    let stopped = false;
    let wake: (() => void) | null = null;
    const nudge = () => wake?.();
    this.#appended.on('appended', nudge);
    const loop = (async () => {
      while (!stopped) {
        const batch = await this.readAll(position, 500);
        for (const event of batch) {
          if (stopped) return;
          await handler(event);
          position = event.position;
        }
        if (batch.length === 0) {
          // Not unref'd: a live subscription keeps its process running, as KurrentDB's open
          // gRPC stream does (a worker on the embedded store otherwise exits when idle).
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, POLL_MS);
          });
          wake = null;
        }
      }
    })().catch((error: unknown) => {
      stopped = true;
      onError(error);
    });
    return {
      stop: async () => {
        stopped = true;
        this.#appended.off('appended', nudge);
        nudge();
        await loop;
      },
    };
  }

  async deleteStream(stream: string): Promise<void> {
    // secure_delete: the rows' bytes are zeroed where they lay, not left in the pages' free space.
    await this.#db.write(async () => overwriting(this.#db.writer, () => statement(this.#db.writer, 'DELETE FROM events WHERE stream = ?').run(stream)));
  }

  async eraseFreedSpace(): Promise<void> {
    await eraseFreedSpace(this.#db);
  }

  async describe(): Promise<Record<string, unknown>> {
    return { engine: this.engine, path: this.#db.path, head_position: await this.headPosition() };
  }

  async close(): Promise<void> {
    // The database is shared with the read store; its owner closes it.
  }

  #query(sql: string, params: SQLInputValue[]): StoredEvent[] {
    return (statement(this.#db.reader, sql).all(...params) as unknown as EventRow[]).map(toStored);
  }
}
