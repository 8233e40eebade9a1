import type { Kysely, Migration } from 'kysely';
import type { Database } from '../schema.js';

/**
 * The limits an operator set on a key (issue 44 item 0), which its holder may lower but not lift.
 * Who set a live user key's limits before this column is unknown, so each one's current limits
 * become its bounds: a key holder can no longer raise their own key past what it has now (a new
 * key within their allowance can be made instead). Re-runnable: a column already added is kept.
 */
export const keyOperatorLimits: Migration = {
  async up(db: Kysely<unknown>) {
    const tables = await db.introspection.getTables();
    const has = tables.find((t) => t.name === 'api_keys')?.columns.some((c) => c.name === 'operator_limits') === true;
    if (has) return;
    await db.schema.alterTable('api_keys').addColumn('operator_limits', 'text').execute();
    const typed = db as Kysely<Database>;
    const rows = await typed.selectFrom('api_keys').selectAll().where('owner', '!=', 'operator').where('revoked_at', 'is', null).execute();
    for (const row of rows) {
      // The shape of keys/operator-limits.ts, written out here: a migration is frozen when it ships.
      const limits: Record<string, unknown> = {};
      if (row.models) limits.models = JSON.parse(row.models);
      if (row.endpoints) limits.endpoints = JSON.parse(row.endpoints);
      if (row.tier !== null) limits.tier = row.tier;
      const numbers = { rpm: row.rpm, tpm: row.tpm, maxParallel: row.max_parallel, budgetUsd: row.budget_usd, expiresAt: row.expires_at, cacheTtlS: row.cache_ttl_s };
      for (const [field, value] of Object.entries(numbers)) if (value !== null && value !== undefined) limits[field] = Number(value);
      if (row.cache_enabled !== null && row.cache_enabled !== undefined && Number(row.cache_enabled) === 0) limits.cacheOff = true;
      if (row.cache_mode === 'exact') limits.cacheExact = true;
      if (Object.keys(limits).length > 0) await typed.updateTable('api_keys').set({ operator_limits: JSON.stringify(limits) }).where('id', '=', row.id).execute();
    }
  },
};
