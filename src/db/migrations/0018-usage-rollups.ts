import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypesFor, dialectOf } from '../dialect.js';
import { installRollupTrigger, rollUpStoredEvents, type RollupMeasure } from '../usage-rollups.js';

/** The figures this migration rolls up (frozen here: later migrations add theirs). */
const MEASURES: readonly RollupMeasure[] = [
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
];

/**
 * Usage rollups (issue 22, src/usage/usage-rollups.ts): the ledger summed per hour and per day,
 * by grain. The primary key serves reads by time (a report's buckets); the second index serves
 * a key's rows (budgets, the keys list, a key's or a user's report). The events already stored
 * are rolled up here, once; on PostgreSQL a statement trigger keeps the rollups from then on.
 */
export const usageRollups: Migration = {
  async up(db: Kysely<unknown>) {
    await createRollups(db);
  },
};

async function createRollups(db: Kysely<unknown>): Promise<void> {
  const { varchar, integer } = columnTypesFor(db);
  let table = db.schema
    .createTable('usage_rollups')
    .ifNotExists()
    .addColumn('period', varchar(8), (c) => c.notNull())
    .addColumn('grain', varchar(8), (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('key_id', varchar(64), (c) => c.notNull())
    .addColumn('model', varchar(100), (c) => c.notNull())
    .addColumn('channel', varchar(100), (c) => c.notNull())
    .addColumn('outcome', varchar(32), (c) => c.notNull());
  for (const measure of MEASURES) {
    table = table.addColumn(measure.column, measure.type === 'real' ? 'double precision' : integer, (c) => c.notNull().defaultTo(0));
  }
  await table
    .addColumn('first_at', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_rollups_pk', ['period', 'grain', 'bucket', 'key_id', 'model', 'channel', 'outcome'])
    .execute();
  await db.schema.createIndex('usage_rollups_key').ifNotExists().on('usage_rollups').columns(['period', 'grain', 'key_id', 'bucket']).execute();
  await sql`delete from usage_rollups`.execute(db);
  await rollUpStoredEvents(db, MEASURES);
  if (dialectOf(db) === 'postgres') await installRollupTrigger(db, MEASURES);
}
