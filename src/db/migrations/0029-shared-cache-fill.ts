import type { Kysely, Migration } from 'kysely';
import { columnTypesFor, dialectOf } from '../dialect.js';

/**
 * What instances sharing a PostgreSQL database share besides the response cache's entries
 * (issue 32): `cache_questions`, the semantic mode's stored questions (unit vectors as float32
 * bytes, read by bucket, newest first), and `cache_fill_leases`, held by the instance whose miss
 * goes upstream while identical misses elsewhere wait for its entry. SQLite gets the tables too
 * (one code path for migrations) but keeps its in-process index and coalescing.
 */
export const sharedCacheFill: Migration = {
  async up(db: Kysely<unknown>) {
    const { integer, varchar } = columnTypesFor(db);
    await db.schema
      .createTable('cache_questions')
      .addColumn('bucket', varchar(64), (c) => c.notNull())
      .addColumn('entry_id', varchar(64), (c) => c.notNull())
      .addColumn('vector', dialectOf(db) === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('created_at', integer, (c) => c.notNull())
      .addColumn('expires_at', integer, (c) => c.notNull())
      .addPrimaryKeyConstraint('cache_questions_pk', ['bucket', 'entry_id'])
      .execute();
    await db.schema.createIndex('cache_questions_bucket').on('cache_questions').columns(['bucket', 'created_at']).execute();
    await db.schema.createIndex('cache_questions_expiry').on('cache_questions').columns(['expires_at']).execute();
    await db.schema
      .createTable('cache_fill_leases')
      .addColumn('id', varchar(64), (c) => c.primaryKey())
      .addColumn('holder', varchar(64), (c) => c.notNull())
      .addColumn('expires_at', integer, (c) => c.notNull())
      .execute();
  },
};
