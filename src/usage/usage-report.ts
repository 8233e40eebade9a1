import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/connect.js';
import { grainFor, type RollupGrain } from '../db/usage-rollups.js';
import { reportSpans, type Span } from './report-spans.js';

export type ReportGroupBy = 'hour' | 'day' | 'model' | 'key' | 'channel' | 'user' | 'user_model' | 'key_model';

/** `user_model` and `key_model` (issue 22): a group per user (or key) and model; the first part names the group. */
const pairedWithModel = (groupBy: ReportGroupBy | undefined): groupBy is 'user_model' | 'key_model' => groupBy === 'user_model' || groupBy === 'key_model';
const byUser = (groupBy: ReportGroupBy | undefined) => groupBy === 'user' || groupBy === 'user_model';

export interface UsageFilter {
  keyId?: string | undefined;
  model?: string | undefined;
  channel?: string | undefined;
  /** Only events of keys this user owns (the console's scope, or the admin `user` filter). */
  ownerId?: string | undefined;
  /** Inclusive, epoch ms. */
  from?: number | undefined;
  /** Exclusive, epoch ms. */
  to?: number | undefined;
}

export interface Totals {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  /** Of the prompt tokens (issue 35): read from the vendor's prompt cache, written to it (5 minutes, 1 hour), image tokens. */
  cached_input_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  image_input_tokens: number;
  /** Of the completion tokens: image tokens. */
  image_output_tokens: number;
  total_tokens: number;
  images: number;
  video_seconds: number;
  cost_usd: number;
  /** Requests the response cache answered (issue 32), and what they saved. */
  cache_hits: number;
  saved_cost_usd: number;
  by_outcome: Record<string, number>;
}

/** The ledger's outcome for a completed video task's charge: an event, not a request. */
const VIDEO_CHARGE = 'video_completed';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Sums the ledger for a report from its rollups (issue 22): whole days from the daily rollups,
 * whole hours from the hourly ones, and only the parts of an hour at the range's ends from the
 * events themselves (report-spans.ts), in the narrowest grain that keeps what the report filters
 * and groups by. One query (a UNION ALL of those spans) grouped by (group, outcome), folded here.
 * Days and hours are UTC. `rawFrom`: events before it may have left the ledger (retention), so a
 * range end older than that is taken to its hour.
 */
export async function usageReport(
  db: Db,
  filter: UsageFilter,
  groupBy: ReportGroupBy | undefined,
  rawFrom = 0,
): Promise<{ totals: Totals; groups: Array<{ group: string; model?: string } & Totals> }> {
  const grain = grainFor({
    key: filter.keyId !== undefined || filter.ownerId !== undefined || groupBy === 'key' || byUser(groupBy) || groupBy === 'key_model',
    model: filter.model !== undefined || groupBy === 'model' || pairedWithModel(groupBy),
    channel: filter.channel !== undefined || groupBy === 'channel',
  });
  const spans = reportSpans(filter.from, filter.to, groupBy === 'hour', rawFrom);
  // Each span's query has the same columns; their builders differ only in the table they read.
  const queries = spans.map((span) => (span.source === 'events' ? fromEvents(db, filter, groupBy, span) : (fromRollups(db, filter, groupBy, span, grain) as unknown as ReturnType<typeof fromEvents>)));
  const rows: Row[] = queries.length === 0 ? [] : await queries.reduce((all, q) => all.unionAll(q)).execute();

  const totals = emptyTotals();
  const groups = new Map<string, { group: string; model?: string; totals: Totals }>();
  for (const row of rows) {
    add(totals, row);
    if (groupBy === undefined) continue;
    const name = groupName(groupBy, row.grp ?? null);
    const model = pairedWithModel(groupBy) ? String(row.grp2 ?? '') : undefined;
    const id = model === undefined ? name : `${name}\u0000${model}`;
    const group = groups.get(id) ?? { group: name, ...(model === undefined ? {} : { model }), totals: emptyTotals() };
    groups.set(id, group);
    add(group.totals, row);
  }
  const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { totals, groups: sorted.map(([, g]) => ({ group: g.group, ...(g.model === undefined ? {} : { model: g.model }), ...g.totals })) };
}

/** The raw events of a part of an hour at a range's end. */
function fromEvents(db: Db, filter: UsageFilter, groupBy: ReportGroupBy | undefined, span: Span) {
  const group = groupExpression(groupBy, 'e.created_at', { key: 'e.key_id', model: 'e.model', channel: 'e.channel' });
  return db
    .selectFrom('usage_events as e')
    .$if(byUser(groupBy), (qb) => qb.leftJoin('api_keys as k', 'k.id', 'e.key_id'))
    .select((eb) => [
      group.as('grp'),
      secondGroup(groupBy, 'e.model').as('grp2'),
      'e.outcome',
      eb.fn.countAll<number>().as('events'),
      eb.fn.sum<number>('e.prompt_tokens').as('prompt_tokens'),
      eb.fn.sum<number>('e.completion_tokens').as('completion_tokens'),
      eb.fn.sum<number>('e.reasoning_tokens').as('reasoning_tokens'),
      eb.fn.sum<number>('e.cached_tokens').as('cached_tokens'),
      eb.fn.sum<number>('e.cache_write_5m_tokens').as('cache_write_5m_tokens'),
      eb.fn.sum<number>('e.cache_write_1h_tokens').as('cache_write_1h_tokens'),
      eb.fn.sum<number>('e.image_input_tokens').as('image_input_tokens'),
      eb.fn.sum<number>('e.image_output_tokens').as('image_output_tokens'),
      eb.fn.sum<number>('e.images').as('images'),
      eb.fn.sum<number>('e.video_seconds').as('video_seconds'),
      eb.fn.sum<number>('e.cost_usd').as('cost_usd'),
      eb.fn.sum<number>('e.cache_hit').as('cache_hits'),
      eb.fn.sum<number>('e.saved_cost_usd').as('saved_cost_usd'),
    ])
    .where('e.created_at', '>=', span.from!)
    .where('e.created_at', '<', span.to!)
    .$if(filter.keyId !== undefined, (qb) => qb.where('e.key_id', '=', filter.keyId!))
    .$if(filter.model !== undefined, (qb) => qb.where('e.model', '=', filter.model!))
    .$if(filter.channel !== undefined, (qb) => qb.where('e.channel', '=', filter.channel!))
    .$if(filter.ownerId !== undefined, (qb) => qb.where('e.key_id', 'in', (sub) => sub.selectFrom('api_keys as owned').select('owned.id').where('owned.owner', '=', filter.ownerId!)))
    .groupBy(['grp', 'grp2', 'e.outcome']);
}

/** The hourly or daily rollups of the grain for whole hours or days. */
function fromRollups(db: Db, filter: UsageFilter, groupBy: ReportGroupBy | undefined, span: Span, grain: RollupGrain) {
  const group = groupExpression(groupBy, 'r.bucket', { key: 'r.key_id', model: 'r.model', channel: 'r.channel' });
  return db
    .selectFrom('usage_rollups as r')
    .$if(byUser(groupBy), (qb) => qb.leftJoin('api_keys as k', 'k.id', 'r.key_id'))
    .select((eb) => [
      group.as('grp'),
      secondGroup(groupBy, 'r.model').as('grp2'),
      'r.outcome',
      eb.fn.sum<number>('r.events').as('events'),
      eb.fn.sum<number>('r.prompt_tokens').as('prompt_tokens'),
      eb.fn.sum<number>('r.completion_tokens').as('completion_tokens'),
      eb.fn.sum<number>('r.reasoning_tokens').as('reasoning_tokens'),
      eb.fn.sum<number>('r.cached_tokens').as('cached_tokens'),
      eb.fn.sum<number>('r.cache_write_5m_tokens').as('cache_write_5m_tokens'),
      eb.fn.sum<number>('r.cache_write_1h_tokens').as('cache_write_1h_tokens'),
      eb.fn.sum<number>('r.image_input_tokens').as('image_input_tokens'),
      eb.fn.sum<number>('r.image_output_tokens').as('image_output_tokens'),
      eb.fn.sum<number>('r.images').as('images'),
      eb.fn.sum<number>('r.video_seconds').as('video_seconds'),
      eb.fn.sum<number>('r.cost_usd').as('cost_usd'),
      eb.fn.sum<number>('r.cache_hits').as('cache_hits'),
      eb.fn.sum<number>('r.saved_cost_usd').as('saved_cost_usd'),
    ])
    .where('r.period', '=', span.source as 'hour' | 'day')
    .where('r.grain', '=', grain)
    .$if(span.from !== undefined, (qb) => qb.where('r.bucket', '>=', span.from!))
    .$if(span.to !== undefined, (qb) => qb.where('r.bucket', '<', span.to!))
    .$if(filter.keyId !== undefined, (qb) => qb.where('r.key_id', '=', filter.keyId!))
    .$if(filter.model !== undefined, (qb) => qb.where('r.model', '=', filter.model!))
    .$if(filter.channel !== undefined, (qb) => qb.where('r.channel', '=', filter.channel!))
    .$if(filter.ownerId !== undefined, (qb) => qb.where('r.key_id', 'in', (sub) => sub.selectFrom('api_keys as owned').select('owned.id').where('owned.owner', '=', filter.ownerId!)))
    .groupBy(['grp', 'grp2', 'r.outcome']);
}

/**
 * `day`/`hour` group by `time / 86400000` (or 3600000), integer division on both stores (times are
 * integers of epoch ms), so days and hours are UTC. `user` is the owner of the event's key.
 */
function groupExpression(groupBy: ReportGroupBy | undefined, time: string, columns: { key: string; model: string; channel: string }): RawBuilder<number | string | null> {
  switch (groupBy) {
    case undefined:
      return sql`null`;
    case 'hour':
      return sql`${sql.ref(time)} / ${sql.lit(HOUR_MS)}`;
    case 'day':
      return sql`${sql.ref(time)} / ${sql.lit(DAY_MS)}`;
    case 'user':
    case 'user_model':
      return sql`k.owner`;
    case 'key_model':
      return sql.ref(columns.key);
    default:
      return sql.ref(columns[groupBy]);
  }
}

/** The model of a user × model or key × model group; null for the other groupings. */
const secondGroup = (groupBy: ReportGroupBy | undefined, model: string): RawBuilder<string | null> => (pairedWithModel(groupBy) ? sql`${sql.ref(model)}` : sql`null`);

function groupName(groupBy: ReportGroupBy, value: number | string | null): string {
  if (groupBy === 'day') return new Date(Number(value) * DAY_MS).toISOString().slice(0, 10);
  if (groupBy === 'hour') return new Date(Number(value) * HOUR_MS).toISOString().slice(0, 13) + ':00Z';
  // A null key or channel is '' in the rollups and null in the events: one group either way.
  return value === null ? '' : String(value);
}

const emptyTotals = (): Totals => ({
  requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0,
  cached_input_tokens: 0, cache_write_5m_tokens: 0, cache_write_1h_tokens: 0, image_input_tokens: 0, image_output_tokens: 0, total_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0, cache_hits: 0, saved_cost_usd: 0, by_outcome: {},
});

interface Row {
  grp: number | string | null;
  grp2: string | null;
  outcome: string;
  events: number | string;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  reasoning_tokens: number | string;
  cached_tokens: number | string;
  cache_write_5m_tokens: number | string;
  cache_write_1h_tokens: number | string;
  image_input_tokens: number | string;
  image_output_tokens: number | string;
  images: number | string;
  video_seconds: number | string;
  cost_usd: number | string;
  cache_hits: number | string;
  saved_cost_usd: number | string;
}

/** PostgreSQL returns sums of integers as strings (bigint/numeric); Number() reads both stores. */
function add(totals: Totals, row: Row): void {
  const events = Number(row.events);
  if (row.outcome !== VIDEO_CHARGE) totals.requests += events;
  totals.by_outcome[row.outcome] = (totals.by_outcome[row.outcome] ?? 0) + events;
  totals.prompt_tokens += Number(row.prompt_tokens ?? 0);
  totals.completion_tokens += Number(row.completion_tokens ?? 0);
  totals.reasoning_tokens += Number(row.reasoning_tokens ?? 0);
  totals.cached_input_tokens += Number(row.cached_tokens ?? 0);
  totals.cache_write_5m_tokens += Number(row.cache_write_5m_tokens ?? 0);
  totals.cache_write_1h_tokens += Number(row.cache_write_1h_tokens ?? 0);
  totals.image_input_tokens += Number(row.image_input_tokens ?? 0);
  totals.image_output_tokens += Number(row.image_output_tokens ?? 0);
  totals.total_tokens = totals.prompt_tokens + totals.completion_tokens;
  totals.images += Number(row.images ?? 0);
  totals.video_seconds += Number(row.video_seconds ?? 0);
  totals.cost_usd = Math.round((totals.cost_usd + Number(row.cost_usd ?? 0)) * 1e9) / 1e9;
  totals.cache_hits += Number(row.cache_hits ?? 0);
  totals.saved_cost_usd = Math.round((totals.saved_cost_usd + Number(row.saved_cost_usd ?? 0)) * 1e9) / 1e9;
}
