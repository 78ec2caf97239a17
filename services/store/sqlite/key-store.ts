// Proposal keys in the embedded store: a table of the events database (the same file as the event
// log, not a read model: no replay drops or rebuilds it, and a copy of the file is a backup of
// both). Everything that writes the table runs with SQLite's `secure_delete` on, so that a
// destroyed key's bytes are overwritten with zeros, not left in the page's free space, on a free
// page, or in a copy of a page that a later insert rebalanced; the destroying purge then truncates
// the WAL, whose older frames still hold the pages as they were. `secure_delete` is switched on for
// these statements only: on for the whole connection it also zeroes every page a replay's swap
// frees, writing a dropped read model's size again into the WAL (docs/decisions.md).
import type { DatabaseSync } from 'node:sqlite';
import { assertSameKey, type KeyStore, type ProposalKey } from '../key-store.ts';
import { forgetStatements, overwriting, statement, truncateWal, type SqliteDatabase } from './database.ts';

const TABLE = 'proposal_keys';
/**
 * Where keys were before they were kept with the events: the embedded read store's table of its
 * `proposal_keys` collection (SqliteReadStore names a collection's table `rm_<name>` and keeps each
 * document as JSON in `doc`).
 */
const READ_MODEL_TABLE = 'rm_proposal_keys';

/** A document of the read store's `proposal_keys` collection, as the service wrote it before. */
interface ReadModelKeyDoc {
  id: string;
  athlete_id: string;
  /** base64 */
  key: string;
  created_at: string;
}

interface KeyRow {
  id: string;
  athlete_id: string;
  key: Uint8Array;
  created_at: string;
}

/** Read on the reader's connection, which takes no lock. */
const hasTable = (db: SqliteDatabase, name: string) => Boolean(db.reader.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name));
const hasIndex = (db: SqliteDatabase, name: string) => Boolean(db.reader.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`).get(name));

const toKey = (row: KeyRow): ProposalKey => ({ id: row.id, athlete_id: row.athlete_id, key: Buffer.from(row.key), created_at: row.created_at });

export class SqliteKeyStore implements KeyStore {
  readonly engine = 'sqlite';
  readonly #db: SqliteDatabase;

  private constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /**
   * The key store in `db`, its table made if missing. Opening a store that has it takes no write
   * lock (a start must not wait for another process's import); making it is a write, which waits
   * for the lock as writes do (another process may be making it too).
   */
  static async open(db: SqliteDatabase): Promise<SqliteKeyStore> {
    const store = new SqliteKeyStore(db);
    if (hasTable(db, TABLE) && hasIndex(db, `${TABLE}_by_created`)) return store;
    await db.write(async () => {
      // A rowid table: keys are appended in time order, so inserts fill the last page, and the
      // purge removes a run of the oldest.
      db.writer.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
        id         TEXT PRIMARY KEY NOT NULL,
        athlete_id TEXT NOT NULL,
        key        BLOB NOT NULL,
        created_at TEXT NOT NULL
      )`);
      db.writer.exec(`CREATE INDEX IF NOT EXISTS ${TABLE}_by_created ON ${TABLE} (created_at)`);
    });
    return store;
  }

  async put(key: ProposalKey): Promise<void> {
    await this.#db.write(async () => this.#overwriting((w) => this.#insert(w, key)));
  }

  async get(id: string): Promise<ProposalKey | null> {
    const row = statement(this.#db.reader, `SELECT id, athlete_id, key, created_at FROM ${TABLE} WHERE id = ?`).get(id) as KeyRow | undefined;
    return row ? toKey(row) : null;
  }

  async destroyBefore(cutoff: Date): Promise<number> {
    const destroyed = await this.#db.write(async () =>
      this.#overwriting((w) => Number(statement(w, `DELETE FROM ${TABLE} WHERE created_at < ?`).run(cutoff.toISOString()).changes)),
    );
    // Also when nothing was destroyed now: an earlier purge may have found the WAL held.
    await this.#truncateWal();
    return destroyed;
  }

  async destroyOf(athleteId: string, keyIds: readonly string[]): Promise<number> {
    const destroyed = await this.#db.write(async () =>
      this.#overwriting((w) =>
        Number(
          statement(w, `DELETE FROM ${TABLE} WHERE athlete_id = ? OR id IN (SELECT value FROM json_each(?))`).run(athleteId, JSON.stringify(keyIds)).changes,
        ),
      ),
    );
    await this.#truncateWal();
    return destroyed;
  }

  async destroy(keyIds: readonly string[]): Promise<number> {
    const destroyed = await this.#db.write(async () =>
      this.#overwriting((w) => Number(statement(w, `DELETE FROM ${TABLE} WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(keyIds)).changes)),
    );
    await this.#truncateWal();
    return destroyed;
  }

  /**
   * Moves the keys the embedded read store kept (stores made before keys were kept here) into this
   * table and drops the read store's table, in one transaction: no key is ever in neither place,
   * and a second process doing the same at once waits for the lock and finds the table gone.
   * Returns how many keys it moved.
   */
  async adoptReadModelKeys(): Promise<number> {
    // Looked for first without the lock: a store that has nothing to move starts without waiting.
    if (!hasTable(this.#db, READ_MODEL_TABLE)) return 0;
    const moved = await this.#db.write(async () =>
      this.#overwriting((w) => {
        if (!w.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(READ_MODEL_TABLE)) return null;
        const rows = w.prepare(`SELECT doc FROM ${READ_MODEL_TABLE}`).all() as Array<{ doc: string }>;
        for (const { doc } of rows) {
          const k = JSON.parse(doc) as ReadModelKeyDoc;
          this.#insert(w, { id: k.id, athlete_id: k.athlete_id, key: Buffer.from(k.key, 'base64'), created_at: k.created_at });
        }
        // With secure_delete on, every page the table and its index free is overwritten.
        forgetStatements(w);
        w.exec(`DROP TABLE ${READ_MODEL_TABLE}`);
        return rows.length;
      }),
    );
    if (moved === null) return 0;
    await this.#truncateWal();
    return moved;
  }

  async describe(): Promise<Record<string, unknown>> {
    return { engine: this.engine, path: this.#db.path, table: TABLE };
  }

  async close(): Promise<void> {
    // The database is shared with the event store; its owner closes it.
  }

  #insert(w: DatabaseSync, key: ProposalKey): void {
    const inserted = statement(w, `INSERT INTO ${TABLE} (id, athlete_id, key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`).run(
      key.id,
      key.athlete_id,
      key.key,
      key.created_at,
    );
    if (inserted.changes === 0) {
      const stored = statement(w, `SELECT id, athlete_id, key, created_at FROM ${TABLE} WHERE id = ?`).get(key.id) as unknown as KeyRow;
      assertSameKey(toKey(stored), key);
    }
  }

  /**
   * Runs `work` on the writer (inside a write transaction) with `secure_delete` on. The pragma is a
   * setting of the connection that takes effect at once, so it covers exactly these statements.
   */
  #overwriting<T>(work: (writer: DatabaseSync) => T): T {
    const w = this.#db.writer;
    return overwriting(w, () => work(w));
  }

  /**
   * Copies the WAL into the database file and truncates it to nothing: its older frames hold pages
   * as they were before the keys were overwritten. Needs a moment when no reader (of any process)
   * is using the WAL; tried for about a second, then left to the next purge.
   */
  #truncateWal(): Promise<boolean> {
    return truncateWal(this.#db);
  }
}
