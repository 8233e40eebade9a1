import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect.js';
import { installRollupTrigger, rollupEventsSql, type RollupMeasure } from '../usage-rollups.js';
import { MEASURES_0025 } from './0025-rollup-token-parts.js';

/** The figures this migration adds to the rollups (frozen here: later migrations add theirs). */
const CACHE_MEASURES: readonly RollupMeasure[] = [
  { column: 'cache_hits', value: 'e.cache_hit', type: 'integer' },
  { column: 'saved_cost_usd', value: 'e.saved_cost_usd', type: 'real' },
];

/** Every figure rolled up as of this migration: 0025's (0018's and the token parts), then the cache's. */
const MEASURES_0027: readonly RollupMeasure[] = [...MEASURES_0025, ...CACHE_MEASURES];

/**
 * Response cache hits in the usage rollups (issue 32): reports count hits and the cost they saved
 * without reading the events. The hits already in the ledger are counted once (the columns are
 * zeroed first, so a re-run after a crash counts them once too). `cache_settings` gets the
 * operator's hit cost fraction per switch (null: the file's).
 */
export const cacheHitRollups: Migration = {
  async up(db: Kysely<unknown>) {
    const tables = await db.introspection.getTables();
    const has = (table: string, column: string) => tables.find((t) => t.name === table)?.columns.some((c) => c.name === column) === true;
    if (!has('usage_rollups', 'cache_hits')) await db.schema.alterTable('usage_rollups').addColumn('cache_hits', dialectOf(db) === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0)).execute();
    if (!has('usage_rollups', 'saved_cost_usd')) await db.schema.alterTable('usage_rollups').addColumn('saved_cost_usd', 'double precision', (c) => c.notNull().defaultTo(0)).execute();
    if (!has('cache_settings', 'hit_cost_fraction')) await db.schema.alterTable('cache_settings').addColumn('hit_cost_fraction', 'double precision').execute();
    await sql`update usage_rollups set cache_hits = 0, saved_cost_usd = 0`.execute(db);
    await sql.raw(rollupEventsSql(dialectOf(db), CACHE_MEASURES, '(select * from usage_events where cache_hit = 1)')).execute(db);
    if (dialectOf(db) === 'postgres') await installRollupTrigger(db, MEASURES_0027);
  },
};
