import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors.js';
import { getRequest, listRequests, type RequestLogDetailRow, type RequestLogRow } from '../../requests/request-log-query.js';
import { unpackHeaders } from '../../requests/packed-headers.js';
import { attemptsOf } from '../../requests/attempts.js';
import { requestLogCsv } from '../../requests/request-log-csv.js';
import { priceUsage, type CostLine } from '../../usage/cost-lines.js';
import type { PriceConfig } from '../../config/schema.js';
import { iso } from '../management/key-input.js';
import { scopeFilterOf } from '../management/usage-answer.js';
import { pageLimit, type ScopedListRoutes } from '../paging.js';
import { validated } from '../management/route-validation.js';
import {
  AdminRequestCsvQuery, ConsoleRequestCsvQuery, validateAdminRequestCsvQuery, validateConsoleRequestCsvQuery,
  AdminRequestLogQuery, ConsoleRequestLogQuery, RequestDetail, RequestEntryId, RequestLogPage, validateAdminRequestLogQuery, validateConsoleRequestLogQuery } from './schemas.js';

type Query = AdminRequestLogQuery;

const headersOf = (row: RequestLogDetailRow): Record<string, string> | null => (row.request_headers === null ? null : unpackHeaders(row.request_headers));

/**
 * The request log (issue 12): for operators under /admin/api, for key holders under /console/api
 * (their own keys' requests; channel names are the operator's business and read as null). The
 * answer includes what this instance has not yet written: both writers are flushed first.
 */
export async function requestLogRoutes(app: FastifyInstance, { base, opts, ownerOf }: ScopedListRoutes): Promise<void> {
  const { readDb, usage, requestLog } = app.gateway;
  const operator = base === '/admin/api';
  const view = (row: RequestLogRow) => ({
    id: row.entry_id ?? '',
    request_id: row.request_id,
    created_at: iso(row.created_at)!,
    key_id: row.key_id,
    key_name: row.key_name,
    user_id: row.user_id,
    family: row.family,
    model: row.model || null,
    channel: operator ? row.channel : null,
    status: row.status,
    outcome: row.outcome,
    latency_ms: row.latency_ms,
    ttfb_ms: row.ttft_ms,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    reasoning_tokens: row.reasoning_tokens,
    total_tokens: row.prompt_tokens + row.completion_tokens,
    cached_tokens: row.cached_tokens,
    cache_write_tokens: row.cache_write_5m_tokens,
    cache_write_1h_tokens: row.cache_write_1h_tokens,
    image_input_tokens: row.image_input_tokens,
    image_output_tokens: row.image_output_tokens,
    cost_usd: row.cost_usd,
    cache_hit: Number(row.cache_hit) === 1,
    saved_cost_usd: Number(row.saved_cost_usd),
    batch_id: row.batch_id ?? null,
    retries: row.retries,
    fallbacks: row.fallbacks,
    error_code: row.error_code,
    error_message: row.error_message,
  });
  const written = () => Promise.all([usage.flush(), requestLog.flush()]);

  app.get(
    `${base}/requests`,
    {
      ...opts(operator ? 'The request log: recent requests on model endpoints, newest first' : 'Requests made with your keys, newest first', {
        querystring: operator ? AdminRequestLogQuery : ConsoleRequestLogQuery,
        response: { 200: RequestLogPage },
      }),
      validatorCompiler: validated(operator ? validateAdminRequestLogQuery : validateConsoleRequestLogQuery),
    },
    async (request) => {
      const query = request.query as Query;
      const filter = { ...filterOf(query, ownerOf(request)), before: query.before === undefined ? undefined : Number(query.before), limit: pageLimit(query.limit) };
      await written();
      const { rows, nextBefore } = await listRequests(readDb, filter, requestLog.cutoff);
      return { object: 'list' as const, data: rows.map(view), next_before: nextBefore === null ? null : String(nextBefore) };
    },
  );

  app.get(
    `${base}/requests.csv`,
    {
      ...opts(operator ? 'The requests the filters match as CSV, newest first (at most 100,000; the list\'s filters)' : 'Your requests the filters match as CSV, newest first (at most 100,000)', {
        querystring: operator ? AdminRequestCsvQuery : ConsoleRequestCsvQuery,
        produces: ['text/csv'],
        response: { 200: { type: 'string' } },
      }),
      validatorCompiler: validated(operator ? validateAdminRequestCsvQuery : validateConsoleRequestCsvQuery),
    },
    async (request, reply) => {
      const filter = filterOf(request.query as Query, ownerOf(request));
      await written();
      // The email the page shows for each key's owner: a user list is small, read once per export.
      const userNames = operator ? new Map((await readDb.selectFrom('users').select(['id', 'email', 'name']).execute()).map((u) => [u.id, u.email ?? u.name])) : new Map<string, string>();
      const lines = requestLogCsv(readDb, filter, requestLog.cutoff, { operator, userNames });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="requests.csv"')
        .header('cache-control', 'no-store')
        .send(Readable.from(lines));
    },
  );

  app.get(
    `${base}/requests/:id`,
    opts(operator ? 'One request with its headers (secrets masked) and, where body logging is on, its bodies' : 'One of your requests in full', {
      params: RequestEntryId,
      response: { 200: RequestDetail },
    }),
    async (request) => {
      const { id } = request.params as { id: string };
      const missing = () => new GatewayError('GW_RESOURCE_NOT_FOUND', `No request '${id}' in the log`);
      if (!/^[\w-]{1,64}$/.test(id)) throw missing();
      await written();
      const row = await getRequest(readDb, id, requestLog.cutoff, ownerOf(request));
      if (!row) throw missing();
      return {
        ...view(row),
        request_headers: headersOf(row),
        request_body: row.request_body,
        response_body: row.response_body,
        cost_lines: costLinesOf(row),
        // Which upstream accounts were tried is the operator's business, as the entry's channel is.
        attempts: attemptsOf(row.attempts, row).map((attempt) => (operator ? { ...attempt, vendor_message: attempt.vendor_message ?? null } : { ...attempt, channel: null, vendor_message: null })),
      };
    },
  );
}

/** The list's and the export's filter from the query: the reports' filters, and the log's own. */
function filterOf(query: Query, ownerId: string | undefined) {
  return { ...scopeFilterOf(query, ownerId), requestId: query.request_id, errorCode: query.error_code, status: query.status, family: query.family, batchId: query.batch };
}

/** The bill line by line, worked out again from the event's usage parts and the price it was billed at. */
function costLinesOf(row: RequestLogDetailRow): CostLine[] {
  if (!row.billed_price) return [];
  return priceUsage(JSON.parse(row.billed_price) as PriceConfig, {
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    reasoningTokens: row.reasoning_tokens,
    cachedTokens: row.cached_tokens,
    cacheWrite5mTokens: row.cache_write_5m_tokens,
    cacheWrite1hTokens: row.cache_write_1h_tokens,
    imageInputTokens: row.image_input_tokens,
    imageOutputTokens: row.image_output_tokens,
    images: row.images,
    videoSeconds: row.video_seconds,
  }).lines;
}
