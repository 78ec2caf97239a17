// One embedded SQLite database (WAL) holding both the event log and the read models, so that an
// append and the projections it feeds commit in one transaction.
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

const statementCaches = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** A prepared statement, compiled once per connection: preparing costs more than running. */
export function statement(conn: DatabaseSync, sql: string): StatementSync {
  let cache = statementCaches.get(conn);
  if (!cache) statementCaches.set(conn, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = conn.prepare(sql)));
  return stmt;
}

/** Schema changes invalidate prepared statements. */
export function forgetStatements(conn: DatabaseSync): void {
  statementCaches.delete(conn);
}

const overwritingDepth = new WeakMap<DatabaseSync, { depth: number; before: string }>();

/**
 * Runs `work` with SQLite's `secure_delete` on for this connection, so that what it deletes is
 * overwritten with zeros, not left in a page's free space or on a free page; restores the
 * connection's setting after. Nested calls share one switch. Not on for the whole connection: that
 * would also zero every page a replay's swap frees, writing a dropped read model's size again into
 * the WAL (docs/decisions.md); only deletions of personal data pay for it.
 */
export function overwriting<T>(conn: DatabaseSync, work: () => T): T {
  let state = overwritingDepth.get(conn);
  if (!state) {
    const level = (conn.prepare('PRAGMA secure_delete').get() as { secure_delete: number }).secure_delete;
    state = { depth: 0, before: ['OFF', 'ON', 'FAST'][level] ?? 'OFF' };
    overwritingDepth.set(conn, state);
  }
  if (state.depth++ === 0) conn.exec('PRAGMA secure_delete = ON');
  const restore = () => {
    if (--state.depth === 0) {
      conn.exec(`PRAGMA secure_delete = ${state.before}`);
      overwritingDepth.delete(conn);
    }
  };
  let result: T;
  try {
    result = work();
  } catch (error) {
    restore();
    throw error;
  }
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}

/** How often, and how far apart, `truncateWal` tries while readers hold the WAL. */
const TRUNCATE_ATTEMPTS = 20;
const TRUNCATE_PAUSE_MS = 50;

/**
 * Copies the WAL into the database file and truncates it to nothing: its older frames hold pages
 * as they were before something was overwritten. Needs a moment when no reader (of any process)
 * is using the WAL; tried for about a second. Returns whether it truncated.
 */
export async function truncateWal(db: SqliteDatabase): Promise<boolean> {
  if (db.path === ':memory:') return true;
  for (let attempt = 0; attempt < TRUNCATE_ATTEMPTS; attempt++) {
    // The writer of this process may be inside another write's transaction (awaiting): a checkpoint then waits.
    if (!db.writer.isTransaction) {
      try {
        const result = db.writer.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number };
        if (result.busy === 0) return true;
      } catch (error) {
        if ((error as { errcode?: number }).errcode !== 5 && (error as { errcode?: number }).errcode !== 6) throw error; // SQLITE_BUSY, SQLITE_LOCKED
      }
    }
    await new Promise((resolve) => setTimeout(resolve, TRUNCATE_PAUSE_MS));
  }
  return false;
}

/**
 * Leaves no copy of deleted rows anywhere in the database's files: VACUUM rewrites the database
 * from its live rows alone (rows updated or deleted earlier, without `secure_delete`, left their
 * old bytes in pages' free space, which `secure_delete` on a later delete does not reach), then the
 * WAL, which holds the pages as they were, is truncated. Takes the write lock for as long as the
 * database takes to copy: for an account's deletion, which is rare (docs/decisions.md).
 */
export async function eraseFreedSpace(db: SqliteDatabase): Promise<void> {
  if (db.path === ':memory:') return;
  // Outside a transaction (VACUUM cannot run in one), with this process's writers waiting; another
  // process's write makes it wait as `write` waits for the lock.
  await db.hold(async () => {
    const giveUp = Date.now() + LOCK_WAIT_MS;
    for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
      try {
        db.writer.exec('VACUUM');
        return;
      } catch (error) {
        if ((error as { errcode?: number }).errcode !== 5 || Date.now() > giveUp) throw error; // SQLITE_BUSY
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  });
  forgetStatements(db.writer);
  if (!(await truncateWal(db))) throw new Error('the WAL could not be truncated: another process kept reading the store');
}

export class Mutex {
  #tail: Promise<void> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** How long a writer waits for another process (an import, a replay's swap) to release the lock. */
const LOCK_WAIT_MS = 60_000;

async function begin(writer: DatabaseSync): Promise<void> {
  const giveUp = Date.now() + LOCK_WAIT_MS;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    try {
      writer.exec('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      const busy = (error as { errcode?: number }).errcode === 5; // SQLITE_BUSY
      if (!busy) throw error;
      if (Date.now() > giveUp)
        throw new Error(
          `the store is held by another process's write (an import or a replay) for longer than ${LOCK_WAIT_MS / 1000} s; try again when it has finished`,
          { cause: error },
        );
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

export interface SqliteDatabase {
  readonly path: string;
  /** Serialises this process's writers; SQLite's own lock (BEGIN IMMEDIATE) serialises processes. */
  readonly writer: DatabaseSync;
  /** Readers use their own connection so they never see a write transaction in progress. */
  readonly reader: DatabaseSync;
  /**
   * Runs `work` in one write transaction. Nested calls (from inside `work`) join the open
   * transaction instead of starting another.
   */
  write<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` while this process's writers wait for it as they wait for each other, but opens
   * no transaction: for a write made on another connection in this process (an import in a worker
   * thread, services/import/thread.ts), which they would otherwise wait for on SQLite's lock, with
   * the event loop held by `busy_timeout` on every try.
   */
  hold<T>(work: () => Promise<T>): Promise<T>;
  /**
   * A number that changes whenever a transaction commits to the database, in this process or any
   * other; what it was before a read tells whether that read could still be answered the same.
   */
  changeVersion(): number;
  close(): void;
}

/**
 * The writer's and the reader's connections, or an error that says which file and what is wrong
 * with it: the data directory is a file, the file is not a database, or another process held it.
 */
function openConnections(path: string): { writer: DatabaseSync; reader: DatabaseSync } {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const writer = open(path);
    // An in-memory database cannot be shared between connections; tests then read on the writer,
    // and so see an open transaction's writes (a file database's reader never does).
    return { writer, reader: path === ':memory:' ? writer : open(path) };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { errcode?: number };
    const why =
      e.code === 'EEXIST' || e.code === 'ENOTDIR'
        ? `${dirname(path)} is not a directory: DATA_DIR must name a directory`
        : e.errcode === 26 // SQLITE_NOTADB
          ? `${path} is not a RepLedger store: it is not an SQLite database`
          : e.errcode === 5 // SQLITE_BUSY
            ? `${path} is held by another process (an import or a replay) for longer than ${OPEN_BUSY_TIMEOUT_MS / 1000} s; try again when it has finished`
            : `${path} cannot be opened: ${e.message}`;
    throw new Error(why, { cause: error });
  }
}

/** How long opening waits for another process's write (it happens once, before serving). */
const OPEN_BUSY_TIMEOUT_MS = 10_000;

function open(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  // Another process (a second instance, the CLI) may be writing: switching to WAL needs the lock.
  db.exec(`PRAGMA busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  // Short: node:sqlite waits synchronously, freezing the event loop. Writers retry the lock
  // asynchronously instead (see `write`); readers never wait in WAL mode.
  db.exec('PRAGMA busy_timeout = 50');
  db.exec('PRAGMA foreign_keys = ON');
  return db;
}

export function openSqlite(path: string): SqliteDatabase {
  const { writer, reader } = openConnections(path);
  const mutex = new Mutex();
  // SQLite's data_version moves on the reader whenever another connection (this process's writer
  // or another process) commits. An in-memory database reads on its writer, so commits are also
  // counted here; the sum moves when either does.
  const dataVersion = reader.prepare('PRAGMA data_version');
  dataVersion.setReturnArrays(true);
  let commits = 0;
  let observed: number | null = null;
  // Marks the async context of a transaction: only work started inside it joins it, and only
  // while it is open. Anyone else waits for the mutex, so a rollback can never take another
  // caller's writes. A callback the transaction's work scheduled (a timer) carries the same mark;
  // if it runs after the transaction ended, its writes start a transaction of their own, instead
  // of running outside the mutex and landing in whichever transaction is open then.
  const inTransaction = new AsyncLocalStorage<object>();
  let openTransaction: object | null = null;
  return {
    path,
    writer,
    reader,
    async write(work) {
      const joined = inTransaction.getStore();
      if (joined !== undefined && joined === openTransaction) return work();
      return mutex.run(() => {
        const transaction = {};
        return inTransaction.run(transaction, async () => {
          await begin(writer);
          openTransaction = transaction;
          try {
            const result = await work();
            writer.exec('COMMIT');
            commits++;
            return result;
          } catch (error) {
            if (writer.isTransaction) writer.exec('ROLLBACK');
            throw error;
          } finally {
            openTransaction = null;
          }
        });
      });
    },
    hold(work) {
      return mutex.run(work);
    },
    changeVersion() {
      // Read once per turn of the event loop: the PRAGMA is a statement with a read transaction
      // (~15 µs, a tenth of a cheap read), and every request asks. Requests handled in the same turn
      // arrived together, so none of them can tell a commit made meanwhile by another process from
      // one made just after; this process's own commits still count at once (`commits`).
      if (observed === null) {
        observed = (dataVersion.get() as unknown as [number])[0];
        setImmediate(() => (observed = null));
      }
      return observed + commits;
    },
    close() {
      if (reader !== writer) reader.close();
      writer.close();
    },
  };
}
