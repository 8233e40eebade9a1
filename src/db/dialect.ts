import { PostgresIntrospector, type ColumnDataType, type Kysely } from 'kysely';

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
