import type { FastifyReply } from 'fastify';
import type { GatewayDeps } from '../../plugins/request-context.js';
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
 * The usage report for a query; `ownerId` scopes it to one user's keys (the console), and wins
 * over the query's `user`. One function for the admin and console reports, JSON and CSV, so
 * their figures are the same by construction.
 */
export async function usageAnswer(deps: Pick<GatewayDeps, 'readDb' | 'usage' | 'requestLog'>, query: UsageQueryInput, ownerId?: string) {
  const filter = {
    keyId: query.key,
    model: query.model,
    channel: query.channel,
    ownerId: ownerId ?? query.user,
    from: query.from === undefined ? undefined : parseTimestamp(query.from, 'from'),
    to: query.to === undefined ? undefined : parseTimestamp(query.to, 'to'),
  };
  // What this instance has counted but not yet written belongs in the answer.
  await deps.usage.flush();
  // Events older than the log's window may be gone: a range end before it is read by the hour.
  const { totals, groups } = await usageReport(deps.readDb, filter, query.group_by, deps.requestLog.cutoff);
  return { object: 'usage_report' as const, group_by: query.group_by ?? null, totals, groups };
}

export function sendUsageCsv(reply: FastifyReply, report: Awaited<ReturnType<typeof usageAnswer>>): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="usage${report.group_by ? `-by-${report.group_by}` : ''}.csv"`)
    .send(usageReportToCsv(report, report.group_by !== null));
}
