import type { Kysely, Migration } from 'kysely';

/**
 * Operator controls on keys (issue 4): a key can be switched off and on again without revoking
 * it (`disabled_at`, null while enabled), and the admin API filters the usage ledger by model
 * and time, so the ledger gets an index for that.
 */
export const keyControls: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').addColumn('disabled_at', 'bigint').execute();
    await db.schema.createIndex('usage_events_time').on('usage_events').columns(['created_at']).execute();
  },
};
