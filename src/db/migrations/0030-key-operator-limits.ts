import type { Kysely, Migration } from 'kysely';
import { withOperatorPatch } from '../../keys/operator-limits.js';
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
      const limits = withOperatorPatch(null, {
        models: row.models ? (JSON.parse(row.models) as string[]) : null,
        endpoints: row.endpoints ? (JSON.parse(row.endpoints) as never[]) : null,
        tier: row.tier,
        rpm: numberOrNull(row.rpm),
        tpm: numberOrNull(row.tpm),
        maxParallel: numberOrNull(row.max_parallel),
        budgetUsd: numberOrNull(row.budget_usd),
        expiresAt: numberOrNull(row.expires_at),
        cacheEnabled: row.cache_enabled === null || row.cache_enabled === undefined ? null : Number(row.cache_enabled) === 1,
        cacheTtlS: numberOrNull(row.cache_ttl_s),
        cacheMode: row.cache_mode === 'exact' ? 'exact' : null,
      });
      if (limits) await typed.updateTable('api_keys').set({ operator_limits: JSON.stringify(limits) }).where('id', '=', row.id).execute();
    }
  },
};

const numberOrNull = (value: number | string | null | undefined): number | null => (value === null || value === undefined ? null : Number(value));
