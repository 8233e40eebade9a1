import type { FastifyReply } from 'fastify';
import type { Db } from '../../db/connect.js';
import type { GatewayDeps } from '../../gateway-deps.js';
import { usageReport, type ReportGroupBy } from '../../usage/usage-report.js';
import { usageReportToCsv } from '../../usage/usage-csv.js';
import { parseTimestamp } from './key-input.js';

/** The query both usage reports take (/admin/api/usage and /console/api/usage). */
export interface UsageQueryInput {
  key?: string | undefined;
  model?: string | undefined;
  channel?: string | undefined;
  user?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  group_by?: ReportGroupBy | undefined;
}

/**
 * The filters the usage reports and the request log share, from a query: `ownerId` (the console's
 * user) wins over `user`.
 */
export function scopeFilterOf(query: Omit<UsageQueryInput, 'group_by'>, ownerId: string | undefined) {
  return {
    keyId: query.key,
    model: query.model,
    channel: query.channel,
    ownerId: ownerId ?? query.user,
    from: query.from === undefined ? undefined : parseTimestamp(query.from, 'from'),
    to: query.to === undefined ? undefined : parseTimestamp(query.to, 'to'),
  };
}

/**
 * The usage report for a query; `ownerId` scopes it to one user's keys (the console), and wins
 * over the query's `user`. One function for the admin and console reports, JSON and CSV, so
 * their figures are the same by construction.
 */
export async function usageAnswer(deps: Pick<GatewayDeps, 'readDb' | 'usage' | 'requestLog'>, query: UsageQueryInput, ownerId?: string) {
  const filter = scopeFilterOf(query, ownerId);
  // What this instance has counted but not yet written belongs in the answer.
  await deps.usage.flush();
  // Events older than the log's window may be gone: a range end before it is read by the hour.
  const { totals, groups } = await usageReport(deps.readDb, filter, query.group_by, deps.requestLog.cutoff);
  return { object: 'usage_report' as const, group_by: query.group_by ?? null, totals, groups };
}

/**
 * The report as CSV with, for key and user groups, the names the console shows beside the ids
 * (issue 22): a key's name, a person's email (their name where they have none).
 */
export async function sendUsageCsv(reply: FastifyReply, db: Db, report: Awaited<ReturnType<typeof usageAnswer>>): Promise<FastifyReply> {
  const ids = [...new Set(report.groups.map((g) => g.group))].filter(Boolean);
  const byKey = report.group_by === 'key' || report.group_by === 'key_model';
  const byUser = report.group_by === 'user' || report.group_by === 'user_model';
  let names: Map<string, string> | undefined;
  if (byKey) names = new Map(ids.length === 0 ? [] : (await db.selectFrom('api_keys').select(['id', 'name']).where('id', 'in', ids).execute()).map((k) => [k.id, k.name]));
  if (byUser) names = new Map(ids.length === 0 ? [] : (await db.selectFrom('users').select(['id', 'email', 'name']).where('id', 'in', ids).execute()).map((u) => [u.id, u.email ?? u.name]));
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="usage${report.group_by ? `-by-${report.group_by.replace('_', '-')}` : ''}.csv"`)
    .send(usageReportToCsv(report, report.group_by !== null, names));
}
