import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/connect.js';

export type ReportGroupBy = 'hour' | 'day' | 'model' | 'key' | 'channel' | 'user';

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
  total_tokens: number;
  images: number;
  video_seconds: number;
  cost_usd: number;
  by_outcome: Record<string, number>;
}

/** The ledger's outcome for a completed video task's charge: an event, not a request. */
const VIDEO_CHARGE = 'video_completed';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Sums the usage ledger. One aggregate query grouped by (group, outcome), folded here: the rows
 * are bounded by groups × outcomes. `day`/`hour` group by `created_at / 86400000` (or 3600000),
 * integer division on both SQLite and PostgreSQL (created_at is an integer of epoch ms), so days
 * and hours are UTC. `user` groups by the owner of each event's key (a join on api_keys).
 */
export async function usageReport(db: Db, filter: UsageFilter, groupBy: ReportGroupBy | undefined): Promise<{ totals: Totals; groups: Array<{ group: string } & Totals> }> {
  const groupExpr = groupExpression(groupBy);
  const rows = await db
    .selectFrom('usage_events as e')
    .$if(groupBy === 'user', (qb) => qb.leftJoin('api_keys as k', 'k.id', 'e.key_id'))
    .select((eb) => [
      'e.outcome',
      eb.fn.countAll<number | string>().as('events'),
      eb.fn.sum<number | string>('e.prompt_tokens').as('prompt_tokens'),
      eb.fn.sum<number | string>('e.completion_tokens').as('completion_tokens'),
      eb.fn.sum<number | string>('e.reasoning_tokens').as('reasoning_tokens'),
      eb.fn.sum<number | string>('e.images').as('images'),
      eb.fn.sum<number | string>('e.video_seconds').as('video_seconds'),
      eb.fn.sum<number | string>('e.cost_usd').as('cost_usd'),
    ])
    .$if(filter.keyId !== undefined, (qb) => qb.where('e.key_id', '=', filter.keyId!))
    .$if(filter.model !== undefined, (qb) => qb.where('e.model', '=', filter.model!))
    .$if(filter.channel !== undefined, (qb) => qb.where('e.channel', '=', filter.channel!))
    .$if(filter.ownerId !== undefined, (qb) =>
      qb.where('e.key_id', 'in', (sub) => sub.selectFrom('api_keys as owned').select('owned.id').where('owned.owner', '=', filter.ownerId!)),
    )
    .$if(filter.from !== undefined, (qb) => qb.where('e.created_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (qb) => qb.where('e.created_at', '<', filter.to!))
    .$if(groupExpr !== undefined, (qb) => qb.select(groupExpr!.as('grp')).groupBy(groupExpr!))
    .groupBy('e.outcome')
    .execute();

  const totals = emptyTotals();
  const groups = new Map<string, Totals>();
  for (const row of rows) {
    add(totals, row);
    if (groupBy === undefined) continue;
    const name = groupName(groupBy, row.grp ?? null);
    const group = groups.get(name) ?? emptyTotals();
    groups.set(name, group);
    add(group, row);
  }
  const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { totals, groups: sorted.map(([group, t]) => ({ group, ...t })) };
}

function groupExpression(groupBy: ReportGroupBy | undefined): RawBuilder<number | string | null> | undefined {
  switch (groupBy) {
    case undefined:
      return undefined;
    case 'hour':
      return sql`e.created_at / ${sql.lit(HOUR_MS)}`;
    case 'day':
      return sql`e.created_at / ${sql.lit(DAY_MS)}`;
    case 'model':
      return sql`e.model`;
    case 'key':
      return sql`e.key_id`;
    case 'channel':
      return sql`e.channel`;
    case 'user':
      return sql`k.owner`;
  }
}

function groupName(groupBy: ReportGroupBy, value: number | string | null): string {
  if (groupBy === 'day') return new Date(Number(value) * DAY_MS).toISOString().slice(0, 10);
  if (groupBy === 'hour') return new Date(Number(value) * HOUR_MS).toISOString().slice(0, 13) + ':00Z';
  return value === null ? '' : String(value);
}

const emptyTotals = (): Totals => ({
  requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0, total_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0, by_outcome: {},
});

interface Row {
  outcome: string;
  events: number | string;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  reasoning_tokens: number | string;
  images: number | string;
  video_seconds: number | string;
  cost_usd: number | string;
}

/** PostgreSQL returns sums of integers as strings (bigint/numeric); Number() reads both stores. */
function add(totals: Totals, row: Row): void {
  const events = Number(row.events);
  if (row.outcome !== VIDEO_CHARGE) totals.requests += events;
  totals.by_outcome[row.outcome] = (totals.by_outcome[row.outcome] ?? 0) + events;
  totals.prompt_tokens += Number(row.prompt_tokens ?? 0);
  totals.completion_tokens += Number(row.completion_tokens ?? 0);
  totals.reasoning_tokens += Number(row.reasoning_tokens ?? 0);
  totals.total_tokens = totals.prompt_tokens + totals.completion_tokens;
  totals.images += Number(row.images ?? 0);
  totals.video_seconds += Number(row.video_seconds ?? 0);
  totals.cost_usd = Math.round((totals.cost_usd + Number(row.cost_usd ?? 0)) * 1e9) / 1e9;
}
