import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * The exact response cache (issue 32). Keys get their cache switch (null: follow the model's or
 * the global setting), default TTL and an operator-set shared namespace; the ledger marks hits and
 * the cost they saved; `response_cache` holds the answers (PostgreSQL: shared by every instance);
 * `cache_settings` the admin API's global (`*`) and per-model switches, which win over the file.
 */
export const responseCache: Migration = {
  async up(db: Kysely<unknown>) {
    const { integer, varchar } = columnTypesFor(db);
    await db.schema.alterTable('api_keys').addColumn('cache_enabled', integer).execute();
    await db.schema.alterTable('api_keys').addColumn('cache_ttl_s', integer).execute();
    await db.schema.alterTable('api_keys').addColumn('cache_namespace', varchar(128)).execute();
    await db.schema.alterTable('usage_events').addColumn('cache_hit', integer, (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('usage_events').addColumn('saved_cost_usd', 'double precision', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createTable('response_cache')
      .addColumn('id', varchar(64), (c) => c.primaryKey())
      .addColumn('scope', varchar(200), (c) => c.notNull())
      .addColumn('family', varchar(40), (c) => c.notNull())
      .addColumn('model', varchar(200), (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('stream', 'text')
      .addColumn('stream_variant', varchar(40))
      .addColumn('usage', 'text', (c) => c.notNull())
      .addColumn('channel', varchar(100))
      .addColumn('bytes', integer, (c) => c.notNull())
      .addColumn('created_at', integer, (c) => c.notNull())
      .addColumn('expires_at', integer, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('response_cache_scope').on('response_cache').columns(['scope']).execute();
    await db.schema.createIndex('response_cache_expiry').on('response_cache').columns(['expires_at']).execute();
    await db.schema.createIndex('response_cache_age').on('response_cache').columns(['created_at']).execute();
    await db.schema
      .createTable('cache_settings')
      .addColumn('target', varchar(200), (c) => c.primaryKey())
      .addColumn('enabled', integer, (c) => c.notNull())
      .addColumn('ttl_s', integer)
      .addColumn('updated_at', integer, (c) => c.notNull())
      .execute();
  },
};
