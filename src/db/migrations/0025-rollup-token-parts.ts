import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypesFor, dialectOf } from '../dialect.js';
import { installRollupTrigger, rollupEventsSql, type RollupMeasure } from '../usage-rollups.js';

/** The token parts this migration adds to the rollups (frozen here: later migrations add theirs). */
const ADDED: readonly RollupMeasure[] = [
  { column: 'cached_tokens', value: 'e.cached_tokens', type: 'integer' },
  { column: 'cache_write_5m_tokens', value: 'e.cache_write_5m_tokens', type: 'integer' },
  { column: 'cache_write_1h_tokens', value: 'e.cache_write_1h_tokens', type: 'integer' },
  { column: 'image_input_tokens', value: 'e.image_input_tokens', type: 'integer' },
  { column: 'image_output_tokens', value: 'e.image_output_tokens', type: 'integer' },
];

/** Every figure the rollups hold as of this migration: 0018's, then these (0027 builds on it). */
export const MEASURES_0025: readonly RollupMeasure[] = [
  { column: 'events', value: '1', type: 'integer' },
  { column: 'prompt_tokens', value: 'e.prompt_tokens', type: 'integer' },
  { column: 'completion_tokens', value: 'e.completion_tokens', type: 'integer' },
  { column: 'reasoning_tokens', value: 'e.reasoning_tokens', type: 'integer' },
  { column: 'images', value: 'e.images', type: 'integer' },
  { column: 'video_seconds', value: 'e.video_seconds', type: 'real' },
  { column: 'cost_usd', value: 'e.cost_usd', type: 'real' },
  { column: 'latency_ms', value: 'e.latency_ms', type: 'integer' },
  { column: 'ttft_ms', value: 'coalesce(e.ttft_ms, 0)', type: 'integer' },
  { column: 'ttft_events', value: 'case when e.ttft_ms is null then 0 else 1 end', type: 'integer' },
  ...ADDED,
];

/**
 * Every billed token part in the usage rollups (issue 35): cache reads, cache writes and image
 * tokens, so the usage report and its CSV show them and each row's cost can be recomputed from its
 * own columns. New events fill them as they are written (SQLite's writer, PostgreSQL's trigger,
 * installed again here); the events still in the ledger are added to the rollups they are in.
 * Events past the ledger's retention are gone, so their rollups read 0 for these parts.
 * Re-runnable: a column already there is kept, and the backfill runs only with the columns it
 * added (the migration and its record commit together on both stores: db/connect.ts `migrate`).
 */
export const rollupTokenParts: Migration = {
  async up(db: Kysely<unknown>) {
    const { integer } = columnTypesFor(db);
    const existing = new Set((await db.introspection.getTables()).find((t) => t.name === 'usage_rollups')?.columns.map((c) => c.name) ?? []);
    const missing = ADDED.filter((m) => !existing.has(m.column));
    for (const measure of missing) {
      await db.schema.alterTable('usage_rollups').addColumn(measure.column, integer, (c) => c.notNull().defaultTo(0)).execute();
    }
    if (missing.length > 0) {
      // Every rollup row of a stored event exists already: this only adds the new parts (0 before) to them.
      await sql.raw(rollupEventsSql(dialectOf(db), missing, 'usage_events')).execute(db);
    }
    if (dialectOf(db) === 'postgres') await installRollupTrigger(db, MEASURES_0025);
  },
};
