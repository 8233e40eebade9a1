import { sql, type Kysely } from 'kysely';
import { dialectOf, type Dialect } from './dialect.js';

/**
 * Usage rollups (issue 22): the ledger summed per hour and per day, so reports, the keys list's
 * month-to-date spend and budgets read a few thousand rows instead of every event. A rollup row is
 * one (period, grain, bucket, key, model, channel, outcome); a grain says which of key, model and
 * channel it keeps (the others are ''), so a report reads the narrowest grain that has what it
 * filters and groups by. Rows are added to in the transaction that stores their events: on SQLite
 * by the usage writer right after its inserts, on PostgreSQL by a statement trigger, so an event
 * is counted exactly when it is stored (a replayed journal skips stored events, and so do rollups).
 */

/** A figure summed into the rollups: its rollup column, its value for one event `e`, its type. */
export interface RollupMeasure {
  column: string;
  value: string;
  type: 'integer' | 'real';
}

/**
 * The figures as of migration 0027 (0018's, 0025's token parts, 0027's cache hits). A later migration that adds a figure adds its column to
 * `usage_rollups` (and `usage_events`), appends it here, and installs the trigger again with
 * `installRollupTrigger(db, ROLLUP_MEASURES)`; test/usage/usage-rollups.test.ts checks the two agree.
 */
export const ROLLUP_MEASURES: readonly RollupMeasure[] = [
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
  { column: 'cached_tokens', value: 'e.cached_tokens', type: 'integer' },
  { column: 'cache_write_5m_tokens', value: 'e.cache_write_5m_tokens', type: 'integer' },
  { column: 'cache_write_1h_tokens', value: 'e.cache_write_1h_tokens', type: 'integer' },
  { column: 'image_input_tokens', value: 'e.image_input_tokens', type: 'integer' },
  { column: 'image_output_tokens', value: 'e.image_output_tokens', type: 'integer' },
  // Migration 0027: response cache hits and the cost they saved (issue 32).
  { column: 'cache_hits', value: 'e.cache_hit', type: 'integer' },
  { column: 'saved_cost_usd', value: 'e.saved_cost_usd', type: 'real' },
];

export type RollupPeriod = 'hour' | 'day';
export type RollupGrain = 'all' | 'key' | 'model' | 'channel' | 'full';

export const PERIOD_MS: Record<RollupPeriod, number> = { hour: 3_600_000, day: 86_400_000 };

/** Which of key, model and channel each grain keeps. */
const GRAINS: Record<RollupGrain, readonly [key: boolean, model: boolean, channel: boolean]> = {
  all: [false, false, false],
  key: [true, false, false],
  model: [false, true, false],
  channel: [false, false, true],
  full: [true, true, true],
};

/** The grain to read for a report that filters or groups by these. */
export function grainFor(needs: { key: boolean; model: boolean; channel: boolean }): RollupGrain {
  const count = Number(needs.key) + Number(needs.model) + Number(needs.channel);
  if (count === 0) return 'all';
  if (count > 1) return 'full';
  return needs.key ? 'key' : needs.model ? 'model' : 'channel';
}

const KEY_COLUMNS = 'period, grain, bucket, key_id, model, channel, outcome';

/** (period, grain) pairs as a derived table `g` every store reads: a UNION ALL of literal rows. */
function grainTable(pairs: ReadonlyArray<readonly [RollupPeriod, RollupGrain]>): string {
  return pairs
    .map(([period, grain]) => {
      const [key, model, channel] = GRAINS[grain];
      return `select '${period}' as period, '${grain}' as grain, ${PERIOD_MS[period]} as size, ${Number(key)} as by_key, ${Number(model)} as by_model, ${Number(channel)} as by_channel`;
    })
    .join(' union all ');
}

const ALL_PAIRS = (['hour', 'day'] as const).flatMap((period) => (Object.keys(GRAINS) as RollupGrain[]).map((grain) => [period, grain] as const));

/**
 * Adds to (or inserts) the rollup rows for the events of `source` (SQL naming usage_events rows):
 * the events are summed once per hour and full grain, and every (period, grain) is summed from
 * those few rows, not from the events ten times over. Rows are taken in key order, so two writers
 * lock shared rows (the current hour's totals) in the same order and never deadlock. `where true`
 * keeps SQLite's parser from reading ON CONFLICT as a join constraint.
 */
export function rollupEventsSql(dialect: Dialect, measures: readonly RollupMeasure[], source: string, pairs = ALL_PAIRS): string {
  const hourly = `select e.created_at - e.created_at % ${PERIOD_MS.hour} as bucket, coalesce(e.key_id, '') as key_id, e.model as model,
      coalesce(e.channel, '') as channel, e.outcome as outcome, ${measures.map((m) => `sum(${m.value}) as ${m.column}`).join(', ')},
      min(e.created_at) as first_at, max(e.created_at) as last_at
    from ${source} e group by 1, 2, 3, 4, 5`;
  return `with h as (${hourly}) ${fromHourlySql(dialect, measures, 'h', pairs)}`;
}

/** Rolls hourly full-grain rows (`source`, with the rollups' columns) up into `pairs` (their sums sum; first and last times min and max). */
function fromHourlySql(dialect: Dialect, measures: readonly RollupMeasure[], source: string, pairs: ReadonlyArray<readonly [RollupPeriod, RollupGrain]>): string {
  const [least, greatest] = dialect === 'postgres' ? ['least', 'greatest'] : ['min', 'max'];
  const added = measures.map((m) => `${m.column} = usage_rollups.${m.column} + excluded.${m.column}`).join(', ');
  return `insert into usage_rollups (${KEY_COLUMNS}, ${measures.map((m) => m.column).join(', ')}, first_at, last_at)
    select g.period, g.grain, r.bucket - r.bucket % g.size,
      case when g.by_key = 1 then r.key_id else '' end,
      case when g.by_model = 1 then r.model else '' end,
      case when g.by_channel = 1 then r.channel else '' end,
      r.outcome, ${measures.map((m) => `sum(r.${m.column})`).join(', ')}, min(r.first_at), max(r.last_at)
    from ${source} r cross join (${grainTable(pairs)}) g
    where true
    group by 1, 2, 3, 4, 5, 6, 7
    order by 1, 2, 3, 4, 5, 6, 7
    on conflict (${KEY_COLUMNS}) do update set ${added},
      first_at = ${least}(usage_rollups.first_at, excluded.first_at), last_at = ${greatest}(usage_rollups.last_at, excluded.last_at)`;
}

/** Every coarser rollup from the stored hourly full-grain rows. */
function rollupFromHourlySql(dialect: Dialect, measures: readonly RollupMeasure[]): string {
  const coarser = ALL_PAIRS.filter(([period, grain]) => !(period === 'hour' && grain === 'full'));
  const hourlyFull = `(select * from usage_rollups where period = 'hour' and grain = 'full')`;
  return fromHourlySql(dialect, measures, hourlyFull, coarser);
}

/**
 * SQLite: the statement that rolls up the events with ids in [first, last] (its two parameters).
 * The usage writer runs it in the transaction of the inserts that gave those ids (one writer at a
 * time holds SQLite's write lock, so the ids of one transaction's inserts are consecutive).
 */
export const sqliteRollupByIdSql = (): string => rollupEventsSql('sqlite', ROLLUP_MEASURES, '(select * from usage_events where id between ? and ?)');

/**
 * PostgreSQL: a statement-level trigger rolls up each INSERT's rows (its transition table) inside
 * that statement, so every writer, including an instance of an older version during a rolling
 * upgrade, keeps the rollups whole.
 */
export async function installRollupTrigger(db: Kysely<unknown>, measures: readonly RollupMeasure[]): Promise<void> {
  await sql
    .raw(`create or replace function usage_rollups_add() returns trigger language plpgsql as $fn$
      begin
        ${rollupEventsSql('postgres', measures, 'new_events')};
        return null;
      end $fn$`)
    .execute(db);
  await sql.raw('drop trigger if exists usage_events_rollup on usage_events').execute(db);
  await sql
    .raw('create trigger usage_events_rollup after insert on usage_events referencing new table as new_events for each statement execute function usage_rollups_add()')
    .execute(db);
}

/**
 * Builds the rollups from the ledger's rows: the hourly full grain from the events, every other
 * from that (far fewer rows to read than the events). Used by migration 0018 for the events stored
 * before rollups existed, and by `rebuildRollups`.
 */
export async function rollUpStoredEvents(db: Kysely<unknown>, measures: readonly RollupMeasure[]): Promise<void> {
  const dialect = dialectOf(db);
  await sql.raw(rollupEventsSql(dialect, measures, 'usage_events', [['hour', 'full']])).execute(db);
  await sql.raw(rollupFromHourlySql(dialect, measures)).execute(db);
}

/** Drops the rollups and builds them again from the ledger (rows past its retention are lost: use with care). */
export async function rebuildRollups<DB>(db: Kysely<DB>): Promise<void> {
  await sql`delete from usage_rollups`.execute(db);
  await rollUpStoredEvents(db as Kysely<unknown>, ROLLUP_MEASURES);
}
