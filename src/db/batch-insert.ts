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
    /** Values of columns a row may leave out (NOT NULL columns added later, which older writers omit). */
    private readonly defaults: Readonly<Partial<Record<keyof Insertable<Database[T]> & string, unknown>>> = {} as never,
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
    const defaults = this.defaults as Record<string, unknown>;
    const values = (row: Insertable<Database[T]>) => this.columns.map((c) => (row as Record<string, unknown>)[c] ?? defaults[c] ?? null);
    if (this.writeSqlite) this.writeSqlite(rows.map(values));
    else await this.db.executeQuery(CompiledQuery.raw(this.sqlFor(rows.length), rows.flatMap(values)));
  }

  private sqlFor(rows: number): string {
    let text = this.insertSql.get(rows);
    if (!text) {
      const placeholder = Object.fromEntries(this.columns.map((c) => [c, null])) as never;
      text = this.db.insertInto(this.table).values(Array.from({ length: rows }, () => placeholder)).compile().sql;
      this.insertSql.set(rows, text);
    }
    return text;
  }
}
