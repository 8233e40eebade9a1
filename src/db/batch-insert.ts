import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import { sqliteHandleOf, sqliteWriterOf, type Db } from './connect.js';
import type SqliteDatabase from 'better-sqlite3';
import type { Database } from './schema.js';

/**
 * Writes rows of one table in batches with statements compiled once: on the embedded SQLite, one
 * transaction of a once-prepared single-row insert; elsewhere one multi-row INSERT whose text is
 * compiled by Kysely per row count and kept. Used by the writers that run off the request path
 * (the usage ledger, the request log); on SQLite the batches run on the store's writer thread.
 */
export class BatchInsert<T extends keyof Database> {
  private readonly insertSql = new Map<number, string>();
  /** SQLite: a batch in one transaction on the writer thread (db/sqlite-writer.ts). */
  private readonly writeSqlite: ((rows: unknown[][]) => Promise<void>) | undefined;
  /** SQLite: a batch in one transaction on this thread's connection, inside a transaction the caller holds. */
  private readonly writeSqliteInline: ((rows: unknown[][]) => void) | undefined;
  private readonly uniqueColumn: (keyof Insertable<Database[T]> & string) | undefined;
  private readonly defaults: Readonly<Record<string, unknown>>;

  constructor(
    private readonly db: Db,
    private readonly table: T,
    /** Every column a row writes, in one fixed order (generated ids are left out). */
    private readonly columns: ReadonlyArray<keyof Insertable<Database[T]> & string>,
    options: {
      /** A uniquely indexed column: a row whose value is already stored is skipped, not an error (a replayed batch). */
      uniqueColumn?: keyof Insertable<Database[T]> & string;
      /** Values of columns a row may leave out (NOT NULL columns added later, which older writers omit). */
      defaults?: Readonly<Partial<Record<keyof Insertable<Database[T]> & string, unknown>>>;
      /**
       * SQLite: a statement run in the transaction of each batch with the first and last rowid it
       * inserted (consecutive: the transaction holds the write lock; skipped rows have none), for
       * work that must commit with the rows (the rollups).
       */
      afterSqliteRowsSql?: string;
    } = {},
  ) {
    this.uniqueColumn = options.uniqueColumn;
    this.defaults = options.defaults ?? {};
    const sqlite = sqliteHandleOf(db);
    if (sqlite) {
      const insertSql = this.sqlFor(1);
      const afterSql = options.afterSqliteRowsSql;
      // On the request thread, only inside a caller's own transaction (a replay at start-up); prepared on first use.
      let inline: ((rows: unknown[][]) => void) | undefined;
      this.writeSqliteInline = (rows) => {
        inline ??= sqliteBatch(sqlite, insertSql, afterSql);
        inline(rows);
      };
      const writer = sqliteWriterOf(db);
      this.writeSqlite = writer ? (rows) => writer.write(insertSql, afterSql, rows) : async (rows) => this.db.connection().execute(async () => this.writeSqliteInline!(rows));
    }
  }

  /**
   * One statement (or one SQLite transaction) for all `rows`; callers keep batches small enough for
   * the database's parameter cap. `executor`: a transaction of the caller's to write in.
   */
  async write(rows: ReadonlyArray<Insertable<Database[T]>>, executor: Kysely<Database> = this.db): Promise<void> {
    const defaults = this.defaults;
    const values = (row: Insertable<Database[T]>) => this.columns.map((c) => (row as Record<string, unknown>)[c] ?? defaults[c] ?? null);
    const writeSqlite = this.writeSqlite;
    if (!writeSqlite) await executor.executeQuery(CompiledQuery.raw(this.sqlFor(rows.length), rows.flatMap(values)));
    // Inside the caller's own transaction (a replay), which holds Kysely's one SQLite connection already.
    else if (executor !== this.db) this.writeSqliteInline!(rows.map(values));
    // Otherwise on the writer thread: its own connection, so never inside another caller's open transaction either.
    else await writeSqlite(rows.map(values));
  }

  private sqlFor(rows: number): string {
    let text = this.insertSql.get(rows);
    if (!text) {
      const placeholder = Object.fromEntries(this.columns.map((c) => [c, null])) as never;
      const insert = this.db.insertInto(this.table).values(Array.from({ length: rows }, () => placeholder));
      const unique = this.uniqueColumn;
      text = (unique ? insert.onConflict((conflict) => conflict.column(unique as never).doNothing()) : insert).compile().sql;
      this.insertSql.set(rows, text);
    }
    return text;
  }
}

/** One transaction of a once-prepared single-row insert, then `afterSql(first, last)` when rows were inserted. */
function sqliteBatch(sqlite: SqliteDatabase.Database, insertSql: string, afterSql: string | undefined): (rows: unknown[][]) => void {
  const insert = sqlite.prepare(insertSql);
  const after = afterSql === undefined ? undefined : sqlite.prepare(afterSql);
  return sqlite.transaction((rows: unknown[][]) => {
    let first = 0;
    let last = 0;
    for (const row of rows) {
      const result = insert.run(row);
      if (result.changes === 0) continue;
      last = Number(result.lastInsertRowid);
      first ||= last;
    }
    if (after && last > 0) after.run(first, last);
  });
}
