import { PostgresIntrospector, sql, type ColumnDataType, type Kysely } from 'kysely';

/**
 * What migrations need to know about the store they run on. The same Kysely code serves SQLite
 * and PostgreSQL; only column types the two treat differently go through here.
 */
export type Dialect = 'sqlite' | 'postgres';

/** Works inside the Migrator's transaction too (a Transaction is a Kysely with the same dialect). */
export const dialectOf = <DB>(db: Kysely<DB>): Dialect => (db.introspection instanceof PostgresIntrospector ? 'postgres' : 'sqlite');

export interface ColumnTypes {
  /**
   * `varchar(n)` on SQLite, where the length is never enforced, `text` on PostgreSQL, which would
   * enforce it: a value SQLite always took (a long model name on a usage event) must not start
   * failing inserts on PostgreSQL.
   */
  varchar(length: number): ColumnDataType;
  /** SQLite's INTEGER holds 64 bits; PostgreSQL's `integer` only 32, so there it is `bigint`. */
  integer: ColumnDataType;
}

/** Column types with SQLite's meaning on both stores; SQLite's DDL is exactly what it always was. */
export function columnTypesFor(db: Kysely<unknown>): ColumnTypes {
  return dialectOf(db) === 'postgres'
    ? { varchar: () => 'text', integer: 'bigint' }
    : { varchar: (length) => `varchar(${length})`, integer: 'integer' };
}

/**
 * Runs a migration's work all or nothing. Kysely's migrator runs SQLite migrations outside a
 * transaction (and each PostgreSQL one inside its own); a long SQLite migration (issue 22's
 * rollups of the events already stored) is wrapped here, so a start killed half-way leaves the
 * store as it was and the next start runs it again whole. Its statements are also written to run
 * again (`if not exists`), for a kill between this commit and the migrator recording it.
 */
export async function migrateAtomically(db: Kysely<unknown>, work: () => Promise<void>): Promise<void> {
  if (dialectOf(db) === 'postgres') return work();
  await sql`begin`.execute(db);
  try {
    await work();
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => undefined);
    throw error;
  }
}
