import type { Db } from '../db/connect.js';

/** The ledger's outcome for a completed video task's charge: an event, not a request. */
const VIDEO_CHARGE = 'video_completed';

export interface RequestLogFilter {
  keyId?: string | undefined;
  model?: string | undefined;
  channel?: string | undefined;
  requestId?: string | undefined;
  /** An exact status (429), a class ('4xx'), 'error' (an error status or an unfinished answer) or 'success'. */
  status?: string | undefined;
  /** Only requests of keys this user owns (the console's scope, or the admin `user` filter). */
  ownerId?: string | undefined;
  /** Inclusive, epoch ms. */
  from?: number | undefined;
  /** Exclusive, epoch ms. */
  to?: number | undefined;
  /** The cursor: entries older than this entry id. */
  before?: number | undefined;
  limit: number;
}

/** One request as the log lists it (the usage event, its key, and its details). */
export interface RequestLogRow {
  id: number;
  request_id: string;
  created_at: number;
  key_id: string | null;
  key_name: string | null;
  user_id: string | null;
  family: string;
  model: string;
  channel: string | null;
  status: number;
  outcome: string;
  latency_ms: number;
  ttft_ms: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  /** The billed parts of the tokens (issue 21). */
  cached_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  image_input_tokens: number;
  image_output_tokens: number;
  retries: number | null;
  fallbacks: number | null;
  error_code: string | null;
  error_message: string | null;
}

export interface RequestLogDetailRow extends RequestLogRow {
  request_headers: string | null;
  request_body: string | null;
  response_body: string | null;
  images: number;
  video_seconds: number;
  /** The price it was billed at, as JSON (issue 21). */
  billed_price: string | null;
}

/**
 * The request log's rows: usage events (the ledger, which every request on a model endpoint
 * writes) joined with their key and their `request_details`, newest first, inside the retention
 * window (`cutoff`). Paged by the event id, which only grows.
 */
function logQuery(db: Db, cutoff: number) {
  return db
    .selectFrom('usage_events as e')
    .leftJoin('api_keys as k', 'k.id', 'e.key_id')
    .leftJoin('request_details as d', (join) => join.onRef('d.request_id', '=', 'e.request_id').onRef('d.created_at', '=', 'e.created_at'))
    .select([
      'e.id', 'e.request_id', 'e.created_at', 'e.key_id', 'k.name as key_name', 'k.owner as user_id', 'e.family', 'e.model', 'e.channel', 'e.status',
      'e.outcome', 'e.latency_ms', 'e.ttft_ms', 'e.prompt_tokens', 'e.completion_tokens', 'e.reasoning_tokens', 'e.cost_usd',
      'e.cached_tokens', 'e.cache_write_5m_tokens', 'e.cache_write_1h_tokens', 'e.image_input_tokens', 'e.image_output_tokens',
      'd.retries', 'd.fallbacks', 'd.error_code', 'd.error_message',
    ])
    .where('e.outcome', '!=', VIDEO_CHARGE)
    .where('e.created_at', '>=', cutoff);
}

export async function listRequests(db: Db, filter: RequestLogFilter, cutoff: number): Promise<{ rows: RequestLogRow[]; nextBefore: number | null }> {
  const status = filter.status;
  const rows = await logQuery(db, cutoff)
    .$if(filter.keyId !== undefined, (qb) => qb.where('e.key_id', '=', filter.keyId!))
    .$if(filter.model !== undefined, (qb) => qb.where('e.model', '=', filter.model!))
    .$if(filter.channel !== undefined, (qb) => qb.where('e.channel', '=', filter.channel!))
    .$if(filter.requestId !== undefined, (qb) => qb.where('e.request_id', '=', filter.requestId!))
    .$if(filter.ownerId !== undefined, (qb) => qb.where('k.owner', '=', filter.ownerId!))
    .$if(filter.from !== undefined, (qb) => qb.where('e.created_at', '>=', filter.from!))
    .$if(filter.to !== undefined, (qb) => qb.where('e.created_at', '<', filter.to!))
    .$if(filter.before !== undefined, (qb) => qb.where('e.id', '<', filter.before!))
    .$if(status !== undefined && /^\d{3}$/.test(status), (qb) => qb.where('e.status', '=', Number(status)))
    .$if(status !== undefined && /^\dxx$/.test(status), (qb) => qb.where('e.status', '>=', Number(status![0]) * 100).where('e.status', '<', Number(status![0]) * 100 + 100))
    .$if(status === 'error', (qb) => qb.where((eb) => eb.or([eb('e.status', '>=', 400), eb('e.outcome', '!=', 'success')])))
    .$if(status === 'success', (qb) => qb.where('e.status', '<', 400).where('e.outcome', '=', 'success'))
    .orderBy('e.id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  const more = rows.length > filter.limit;
  if (more) rows.length = filter.limit;
  return { rows, nextBefore: more ? rows[rows.length - 1]!.id : null };
}

/** One entry with its headers and bodies; `ownerId` limits it to that user's keys. */
export async function getRequest(db: Db, id: number, cutoff: number, ownerId?: string): Promise<RequestLogDetailRow | undefined> {
  return logQuery(db, cutoff)
    .select(['d.request_headers', 'd.request_body', 'd.response_body', 'e.billed_price', 'e.images', 'e.video_seconds'])
    .where('e.id', '=', id)
    .$if(ownerId !== undefined, (qb) => qb.where('k.owner', '=', ownerId!))
    .executeTakeFirst();
}
