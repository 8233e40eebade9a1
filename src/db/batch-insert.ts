import { CompiledQuery, type Insertable } from 'kysely';
import { sqliteHandleOf, type Db } from './connect.js';
import type { Database } from './schema.js';

/**
 * Writes rows of one table in batches with statements compiled once: on the embedded SQLite, one
 * transaction of a once-prepared single-row insert; elsewhere one multi-row INSERT whose text is
 * compiled by Kysely per row count and kept. Used by the writers that run off the request path
 * (the usage ledger, the request log).
 */
export class BatchInsert<T extends keyof Database> {
  private readonly insertSql = new Map<number, string>();
  private readonly writeSqlite: ((rows: unknown[][]) => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly table: T,
    /** Every column a row writes, in one fixed order (generated ids are left out). */
    private readonly columns: ReadonlyArray<keyof Insertable<Database[T]> & string>,
    /** A uniquely indexed column: a row whose value is already stored is skipped, not an error (a replayed batch). */
    private readonly uniqueColumn?: keyof Insertable<Database[T]> & string,
  ) {
    const sqlite = sqliteHandleOf(db);
    if (sqlite) {
      const insert = sqlite.prepare(this.sqlFor(1));
      this.writeSqlite = sqlite.transaction((rows: unknown[][]) => {
        for (const row of rows) insert.run(row);
      });
    }
  }

  /** One statement (or one SQLite transaction) for all `rows`; callers keep batches small enough for the database's parameter cap. */
  async write(rows: ReadonlyArray<Insertable<Database[T]>>): Promise<void> {
    const values = (row: Insertable<Database[T]>) => this.columns.map((c) => (row as Record<string, unknown>)[c] ?? null);
    // Through Kysely's one SQLite connection, so a batch never lands inside another caller's open transaction.
    const writeSqlite = this.writeSqlite;
    if (writeSqlite) await this.db.connection().execute(async () => writeSqlite(rows.map(values)));
    else await this.db.executeQuery(CompiledQuery.raw(this.sqlFor(rows.length), rows.flatMap(values)));
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
