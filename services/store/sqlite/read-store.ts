import { randomBytes } from 'node:crypto';
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { CollectionSpec, Doc, Documents, KeyValue, PageQuery, ReadStore, Rebuild } from '../read-store.ts';
import { processAlive } from '../process-alive.ts';
import { forgetStatements, overwriting, statement, type SqliteDatabase } from './database.ts';

const IDENT = /^[a-z][a-z0-9_]*$/;
const FIELD = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/i;

function ident(name: string): string {
  if (!IDENT.test(name)) throw new Error(`invalid collection or index name: ${name}`);
  return name;
}

function fieldExpr(field: string): string {
  if (!FIELD.test(field)) throw new Error(`invalid index field: ${field}`);
  return field === 'id' ? 'id' : `json_extract(doc, '$.${field}')`;
}

const tableOf = (collection: string, suffix = '') => `rm_${ident(collection)}${suffix}`;
const indexOf = (table: string, index: string) => `${table}__ix_${ident(index)}`;
const REBUILD = '__rebuild_';

function toSql(value: KeyValue): SQLInputValue {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/**
 * Documents over one connection. `table` maps a collection name to its physical table so that a
 * rebuild can write into fresh tables under the same names.
 */
class SqliteDocuments implements Documents {
  readonly #conn: () => DatabaseSync;
  readonly #table: (collection: string) => string;
  readonly #indexes: Map<string, Map<string, string[]>>;
  readonly #pageSqls = new Map<string, string>();

  constructor(conn: () => DatabaseSync, table: (c: string) => string, indexes: Map<string, Map<string, string[]>>) {
    this.#conn = conn;
    this.#table = table;
    this.#indexes = indexes;
  }

  async get<T extends Doc>(collection: string, partition: string, id: string): Promise<T | null> {
    const row = statement(this.#conn(), `SELECT doc FROM ${this.#table(collection)} WHERE partition = ? AND id = ?`).get(partition, id) as
      | { doc: string }
      | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async getMany<T extends Doc>(collection: string, partition: string, ids: string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const rows = statement(this.#conn(), `SELECT id, doc FROM ${this.#table(collection)} WHERE partition = ? AND id IN (SELECT value FROM json_each(?))`).all(
      partition,
      JSON.stringify(ids),
    ) as Array<{ id: string; doc: string }>;
    const byId = new Map(rows.map((r) => [r.id, r.doc]));
    // In the order asked for; each document parsed once (a repeated id gets its own copy).
    return ids.flatMap((id) => {
      const doc = byId.get(id);
      return doc === undefined ? [] : [JSON.parse(doc) as T];
    });
  }

  async upsert(collection: string, partition: string, doc: Doc): Promise<void> {
    statement(
      this.#conn(),
      `INSERT INTO ${this.#table(collection)} (partition, id, doc) VALUES (?, ?, ?)
         ON CONFLICT (partition, id) DO UPDATE SET doc = excluded.doc`,
    ).run(partition, doc.id, JSON.stringify(doc));
  }

  async delete(collection: string, partition: string, id: string): Promise<void> {
    statement(this.#conn(), `DELETE FROM ${this.#table(collection)} WHERE partition = ? AND id = ?`).run(partition, id);
  }

  async deleteWhere(collection: string, partition: string, index: string, prefix: KeyValue[]): Promise<number> {
    const fields = this.#fields(collection, index).slice(0, prefix.length);
    const where = fields.map((f, i) => equals(fieldExpr(f), prefix[i]!)).join(' AND ');
    const result = statement(this.#conn(), `DELETE FROM ${this.#indexed(collection, index)} WHERE partition = ?${where ? ` AND ${where}` : ''}`).run(
      partition,
      ...bound(prefix),
    );
    return Number(result.changes);
  }

  async deleteOwned(collection: string, owner: string, field?: string): Promise<number> {
    const conn = this.#conn();
    const where = field ? `partition = ? OR ${fieldExpr(field)} = ?` : 'partition = ?';
    const result = overwriting(conn, () => statement(conn, `DELETE FROM ${this.#table(collection)} WHERE ${where}`).run(...(field ? [owner, owner] : [owner])));
    return Number(result.changes);
  }

  async page<T extends Doc>(collection: string, q: PageQuery): Promise<T[]> {
    const prefix = q.prefix ?? [];
    const params: SQLInputValue[] = [q.partition, ...bound(prefix)];
    if (q.range?.gte !== undefined) params.push(toSql(q.range.gte));
    if (q.range?.lte !== undefined) params.push(toSql(q.range.lte));
    if (q.after) params.push(...keysetParams(q.after));
    const rows = statement(this.#conn(), this.#pageSql(collection, q)).all(...params) as Array<{ doc: string }>;
    const docs = rows.map((r) => JSON.parse(r.doc) as T);
    // Descending after a value, the documents whose first keyset field is null come last. The
    // main query leaves them out, so that its bound stays an index range; fetch them once it
    // has run out (a range never holds null, so not then).
    if (q.direction === 'desc' && q.after && q.after[0] !== null && !q.range && docs.length < q.limit) {
      const tail = statement(this.#conn(), this.#nullTailSql(collection, q)).all(q.partition, ...bound(prefix)) as Array<{ doc: string }>;
      for (const r of tail.slice(0, q.limit - docs.length)) docs.push(JSON.parse(r.doc) as T);
    }
    return docs;
  }

  /** The documents of a page's prefix whose first field after it is null, in the page's order. */
  #nullTailSql(collection: string, q: PageQuery): string {
    const fields = this.#fields(collection, q.index);
    const prefix = q.prefix ?? [];
    const rest = fields.slice(prefix.length);
    const where = ['partition = ?', ...fields.slice(0, prefix.length).map((f, i) => equals(fieldExpr(f), prefix[i]!)), `${fieldExpr(rest[0]!)} IS NULL`];
    const order = rest.slice(1).map((f) => `${fieldExpr(f)} DESC`);
    return `SELECT doc FROM ${this.#indexed(collection, q.index)} WHERE ${where.join(' AND ')}${order.length ? ` ORDER BY ${order.join(', ')}` : ''} LIMIT ${q.limit}`;
  }

  /** Indexes were (re)declared: page SQL built from the old ones is forgotten. */
  forgetQueries(): void {
    this.#pageSqls.clear();
  }

  /**
   * A page's SQL depends only on the query's shape: built once per shape, not on every read. The
   * limit is written into it: SQLite plans with a bound LIMIT's value, so binding one expires the
   * statement and every read compiled it again (~5 µs, several times that with cold caches).
   */
  #pageSql(collection: string, q: PageQuery): string {
    if (!Number.isSafeInteger(q.limit) || q.limit < 1) throw new Error(`invalid page limit: ${q.limit}`);
    const prefixLength = q.prefix?.length ?? 0;
    // Which prefix and keyset values are null is part of the shape: null is compared differently.
    const shape = `${collection} ${q.index} ${q.direction} ${nullMask(q.prefix)} ${q.range?.gte !== undefined} ${q.range?.lte !== undefined} ${q.after ? nullMask(q.after) : '-'} ${q.limit}`;
    let sql = this.#pageSqls.get(shape);
    if (sql) return sql;
    const fields = this.#fields(collection, q.index);
    if (prefixLength >= fields.length) throw new Error(`prefix of ${q.index} is longer than the index`);
    const rest = fields.slice(prefixLength);
    const where = ['partition = ?', ...fields.slice(0, prefixLength).map((f, i) => equals(fieldExpr(f), q.prefix![i]!))];
    const first = fieldExpr(rest[0]!);
    if (q.range?.gte !== undefined) where.push(`${first} >= ?`);
    if (q.range?.lte !== undefined) where.push(`${first} <= ?`);
    if (q.after) {
      if (q.after.length !== rest.length) throw new Error(`keyset of ${q.index} needs ${rest.length} values`);
      where.push(keysetCondition(rest.map(fieldExpr), q.after, q.direction, true));
    }
    const dir = q.direction === 'asc' ? 'ASC' : 'DESC';
    // Only the fields after the prefix: the prefix is fixed by equality, and naming it in ORDER BY
    // makes SQLite sort every match in a temporary B-tree instead of walking the index.
    const order = rest.map((f) => `${fieldExpr(f)} ${dir}`).join(', ');
    sql = `SELECT doc FROM ${this.#indexed(collection, q.index)} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${q.limit}`;
    this.#pageSqls.set(shape, sql);
    return sql;
  }

  async count(collection: string, partition?: string): Promise<number> {
    const sql = `SELECT COUNT(*) AS n FROM ${this.#table(collection)}${partition === undefined ? '' : ' WHERE partition = ?'}`;
    const row = (partition === undefined ? statement(this.#conn(), sql).get() : statement(this.#conn(), sql).get(partition)) as {
      n: number;
    };
    return row.n;
  }

  /** Names the index: without statistics SQLite would scan the whole partition by primary key. */
  #indexed(collection: string, index: string): string {
    const table = this.#table(collection);
    // An index of the id alone is the primary key, which SQLite walks unasked.
    return isPrimaryKey(this.#fields(collection, index)) ? table : `${table} INDEXED BY ${indexOf(table, index)}`;
  }

  #fields(collection: string, index: string): string[] {
    const fields = this.#indexes.get(collection)?.get(index);
    if (!fields) throw new Error(`collection ${collection} has no index ${index}`);
    return fields;
  }
}

/**
 * Null sorts before every other value (SQLite's order, and MongoDB's): the contract of the port.
 * SQL's `=`, `<` and `>` are never true of NULL, so null values are compared with IS / IS NOT.
 */
const equals = (expr: string, value: KeyValue) => (value === null ? `${expr} IS NULL` : `${expr} = ?`);
const nullMask = (values: KeyValue[] | undefined) => (values ?? []).map((v) => (v === null ? 'n' : 'v')).join('');
/** The parameters of equalities built by `equals`: null ones bind nothing. */
const bound = (values: KeyValue[]) => values.filter((v) => v !== null).map(toSql);

/**
 * "After this key" as `a >= x AND (a > x OR (b >= y AND (b > y OR ...)))`: unlike the row value
 * `(a, b) > (x, y)`, SQLite uses the leading bound as an index range on expression indexes.
 * A null x: ascending, every non-null a is after it (`a IS NOT NULL OR (a IS NULL AND ...)`);
 * descending, nothing is (`a IS NULL AND ...`). A non-null x descending: a null a is after it,
 * except on the leading field, whose nulls `page` fetches separately to keep the range.
 */
function keysetCondition(exprs: string[], after: KeyValue[], direction: 'asc' | 'desc', leading: boolean): string {
  const [expr, ...more] = exprs;
  const op = direction === 'asc' ? '>' : '<';
  const value = after[after.length - exprs.length]; // `exprs` are the last fields of the keyset
  const deeper = more.length ? keysetCondition(more, after, direction, false) : null;
  if (value === null) {
    if (direction === 'asc') return deeper ? `(${expr} IS NOT NULL OR (${expr} IS NULL AND (${deeper})))` : `${expr} IS NOT NULL`;
    return deeper ? `${expr} IS NULL AND (${deeper})` : '0';
  }
  const nullsAfter = direction === 'desc' && !leading ? ` OR ${expr} IS NULL` : '';
  if (!deeper) return nullsAfter ? `(${expr} ${op} ?${nullsAfter})` : `${expr} ${op} ?`;
  return `(${expr} ${op}= ?${nullsAfter}) AND (${expr} ${op} ?${nullsAfter} OR (${deeper}))`;
}

/** The values `keysetCondition` binds, in its order: each non-null one twice but the last once. */
function keysetParams(values: KeyValue[]): SQLInputValue[] {
  return values.flatMap((v, i) => (v === null ? [] : i < values.length - 1 ? [toSql(v), toSql(v)] : [toSql(v)]));
}

const isPrimaryKey = (fields: string[]) => fields.length === 1 && fields[0] === 'id';

/**
 * The statements that make `table` as `spec` declares it: none when it is so already. An index a
 * release changed (other fields under the same name) is rebuilt, and one it renamed or removed is
 * dropped: CREATE INDEX IF NOT EXISTS alone would keep the old definition, and pages forced onto it
 * by INDEXED BY would sort every match instead of walking the index.
 */
function tableChanges(conn: DatabaseSync, table: string, spec: CollectionSpec, indexTable = table): string[] {
  const out: string[] = [];
  const exists = conn.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined;
  // A rowid table: WITHOUT ROWID keeps only ~1 KB of a row in its b-tree page, and documents of
  // several KB (workout details, record indicators) then each took an overflow page of their own.
  // 2,000 imported workouts: 152 MB and 8.5 s that way, 91 MB and 6.8 s this way.
  if (!exists) out.push(`CREATE TABLE IF NOT EXISTS ${table} (partition TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (partition, id))`);
  const existing = new Map(
    (
      conn.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).all(table) as Array<{
        name: string;
        sql: string;
      }>
    ).map((r) => [r.name, r.sql]),
  );
  const declared = new Set<string>();
  for (const index of spec.indexes) {
    // (partition, id) is the primary key's own index already; a copy only doubled every write.
    if (isPrimaryKey(index.fields)) continue;
    const name = indexOf(indexTable, index.name);
    const sql = `CREATE INDEX ${name} ON ${table} (partition, ${index.fields.map(fieldExpr).join(', ')})`;
    declared.add(name);
    if (existing.get(name) === sql) continue;
    if (existing.has(name)) out.push(`DROP INDEX ${name}`);
    out.push(sql);
  }
  for (const name of existing.keys()) if (name.startsWith(`${indexTable}__ix_`) && !declared.has(name)) out.push(`DROP INDEX ${name}`);
  return out;
}

/** Makes `table` as `spec` declares it. Run in a write transaction where another process may do the same at once. */
function createTable(conn: DatabaseSync, table: string, spec: CollectionSpec, indexTable = table): void {
  const changes = tableChanges(conn, table, spec, indexTable);
  if (changes.length === 0) return;
  forgetStatements(conn);
  for (const sql of changes) conn.exec(sql);
}

export class SqliteReadStore extends SqliteDocuments implements ReadStore {
  readonly engine = 'sqlite';
  readonly #db: SqliteDatabase;
  readonly #indexes: Map<string, Map<string, string[]>>;
  /** Documents bound to the open write transaction. */
  readonly inTransaction: SqliteDocuments;

  constructor(db: SqliteDatabase) {
    const indexes = new Map<string, Map<string, string[]>>();
    super(
      () => db.reader,
      (c) => tableOf(c),
      indexes,
    );
    this.#db = db;
    this.#indexes = indexes;
    this.inTransaction = new SqliteDocuments(
      () => db.writer,
      (c) => tableOf(c),
      indexes,
    );
  }

  override async upsert(collection: string, partition: string, doc: Doc): Promise<void> {
    await this.#db.write(() => this.inTransaction.upsert(collection, partition, doc));
  }

  override async delete(collection: string, partition: string, id: string): Promise<void> {
    await this.#db.write(() => this.inTransaction.delete(collection, partition, id));
  }

  override async deleteOwned(collection: string, owner: string, field?: string): Promise<number> {
    return this.#db.write(() => this.inTransaction.deleteOwned(collection, owner, field));
  }

  override async deleteWhere(collection: string, partition: string, index: string, prefix: KeyValue[]): Promise<number> {
    return this.#db.write(() => this.inTransaction.deleteWhere(collection, partition, index, prefix));
  }

  async ensureCollections(specs: CollectionSpec[]): Promise<void> {
    this.#dropAbandonedRebuilds();
    this.forgetQueries();
    this.inTransaction.forgetQueries();
    for (const spec of specs) this.#indexes.set(spec.name, new Map(spec.indexes.map((i) => [i.name, i.fields])));
    // Looked at without the write lock first: a start with nothing to change must not wait on
    // another process's import. Changes are made in a write transaction, looked at again there:
    // processes starting at once would otherwise both find an index missing, and the second
    // CREATE INDEX fail ("already exists").
    const w = this.#db.writer;
    if (specs.every((spec) => tableChanges(w, tableOf(spec.name), spec).length === 0)) return;
    await this.#db.write(async () => {
      for (const spec of specs) createTable(w, tableOf(spec.name), spec);
    });
  }

  async dropCollections(names: string[]): Promise<void> {
    forgetStatements(this.#db.writer);
    this.forgetQueries();
    this.inTransaction.forgetQueries();
    for (const name of names) {
      this.#indexes.delete(name);
      // Its indexes go with it.
      this.#db.writer.exec(`DROP TABLE IF EXISTS ${tableOf(name)}`);
    }
  }

  /** Tables of rebuilds whose process is gone (killed mid-replay): nothing will swap or discard them. */
  #dropAbandonedRebuilds(): void {
    const tables = this.#db.writer.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '*${REBUILD}*'`).all() as Array<{ name: string }>;
    const abandoned = tables.filter(({ name }) => !processAlive(Number(/__rebuild_(\d+)_/.exec(name)?.[1])));
    if (abandoned.length === 0) return;
    forgetStatements(this.#db.writer);
    for (const { name } of abandoned) this.#db.writer.exec(`DROP TABLE IF EXISTS ${name}`);
  }

  transaction<T>(work: (docs: Documents) => Promise<T>): Promise<T> {
    return this.#db.write(() => work(this.inTransaction));
  }

  /** A SQLite swap is one transaction: no process can leave one half-done. */
  async finishInterruptedSwaps(): Promise<number> {
    return 0;
  }

  async beginRebuild(specs: CollectionSpec[]): Promise<Rebuild> {
    // Each rebuild writes to tables of its own: two replays at once must not empty each other's.
    // The process id lets a later start tell a rebuild killed midway from one still running.
    const suffix = `${REBUILD}${process.pid}_${randomBytes(4).toString('hex')}`;
    const names = new Set(specs.map((s) => s.name));
    const w = this.#db.writer;
    await this.#db.write(async () => {
      for (const spec of specs) {
        w.exec(`DROP TABLE IF EXISTS ${tableOf(spec.name, suffix)}`);
        createTable(w, tableOf(spec.name, suffix), spec);
      }
    });
    // Collections not being rebuilt stay live, so a projection may still read them.
    const route = (c: string) => (names.has(c) ? tableOf(c, suffix) : tableOf(c));
    const documents = new SqliteDocuments(() => w, route, this.#indexes);
    // The swap below is one transaction, so the position need not outlive this process: a rebuild
    // killed before it is dropped whole, one killed after it is complete.
    let position = 0;
    return {
      transaction: (work, reached) =>
        this.#db.write(async () => {
          const result = await work(documents);
          position = reached;
          return result;
        }),
      swap: (finish) =>
        this.#db.write(async () => {
          forgetStatements(w);
          for (const spec of specs) {
            w.exec(`DROP TABLE ${tableOf(spec.name)}`);
            w.exec(`ALTER TABLE ${tableOf(spec.name, suffix)} RENAME TO ${tableOf(spec.name)}`);
            for (const index of spec.indexes) w.exec(`DROP INDEX IF EXISTS ${indexOf(tableOf(spec.name, suffix), index.name)}`);
            createTable(w, tableOf(spec.name), spec);
          }
          if (finish) await finish(this.inTransaction, position);
        }),
      discard: () =>
        this.#db.write(async () => {
          forgetStatements(w);
          for (const spec of specs) w.exec(`DROP TABLE IF EXISTS ${tableOf(spec.name, suffix)}`);
        }),
    };
  }

  async dump(collection: string): Promise<Array<{ partition: string; doc: Doc }>> {
    const rows = statement(this.#db.reader, `SELECT partition, doc FROM ${tableOf(collection)} ORDER BY partition, id`).all() as Array<{
      partition: string;
      doc: string;
    }>;
    return rows.map((r) => ({ partition: r.partition, doc: JSON.parse(r.doc) as Doc }));
  }

  async describe(): Promise<Record<string, unknown>> {
    return { engine: this.engine, path: this.#db.path };
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}
