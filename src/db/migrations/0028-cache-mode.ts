import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * The response cache's semantic mode (issue 32): a key's match mode (null follows the model's or
 * the global switch) and the admin API's mode per switch. Re-runnable: a column already added is kept.
 */
export const cacheMode: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    const tables = await db.introspection.getTables();
    const has = (table: string, column: string) => tables.find((t) => t.name === table)?.columns.some((c) => c.name === column) === true;
    if (!has('api_keys', 'cache_mode')) await db.schema.alterTable('api_keys').addColumn('cache_mode', varchar(16)).execute();
    if (!has('cache_settings', 'mode')) await db.schema.alterTable('cache_settings').addColumn('mode', varchar(16)).execute();
  },
};
