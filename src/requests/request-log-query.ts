import { sql } from 'kysely';
import type { Db } from '../db/connect.js';

/** The ledger's outcome for a completed video task's charge: an event, not a request. */
const VIDEO_CHARGE = 'video_completed';

/**
 * The failed requests, as the partial index `usage_events_errors` (migration 0019) states them.
 * Written as literal SQL, identical to the index's: SQLite uses a partial index only when the query
 * carries its condition, and a bound parameter would hide the values.
 */
const FAILED = sql<boolean>`(e.status >= 400 or e.outcome <> 'success')`;

/** Past this many keys, a user's requests are read with one IN list instead of one branch per key. */
const MAX_KEY_BRANCHES = 50;

export interface RequestLogFilter {
  keyId?: string | undefined;
  model?: string | undefined;
  channel?: string | undefined;
  requestId?: string | undefined;
  /** The error code the client read (request_details.error_code). */
  errorCode?: string | undefined;
  /** One endpoint family ('mcp': the tool calls). */
  family?: string | undefined;
  /** The lines of one batch (issue 46). */
  batchId?: string | undefined;
  /** An exact status (429), a class ('4xx'), 'error' (an error status or an unfinished answer) or 'success'. */
  status?: string | undefined;
  /** Only requests of keys this user owns (the console's scope, or the admin `user` filter). */
  ownerId?: string | undefined;
  /** Inclusive, epoch ms. */
  from?: number | undefined;
  /** Exclusive, epoch ms. */
  to?: number | undefined;
  /** The cursor: entries after this entry id in the log's order (older, or as old with a lower id). */
  before?: number | undefined;
  limit: number;
}

/** One request as the log lists it (the usage event, its key, and its details). */
export interface RequestLogRow {
  /** The ledger row's id: the list's cursor only. */
  id: number;
  /** The gateway's own id for the entry (issue 23): what the API calls `id`. */
  entry_id: string | null;
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
  /** 1 when the response cache answered (issue 32), with what the hit saved. */
  cache_hit: number;
  saved_cost_usd: number;
  /** The batch the request was a line of (issue 46). */
  batch_id?: string | null | undefined;
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
  /** Each upstream attempt as JSON, when one failed (0021). */
  attempts: string | null;
}

/**
 * The request log's rows: usage events (the ledger, which every request on a model endpoint
 * writes) joined with their key and their `request_details`, inside the retention window.
 */
function logQuery(db: Db, cutoff: number) {
  return db
    .selectFrom('usage_events as e')
    .leftJoin('api_keys as k', 'k.id', 'e.key_id')
    .leftJoin('request_details as d', 'd.entry_id', 'e.entry_id')
    .select([
      'e.id', 'e.entry_id', 'e.request_id', 'e.created_at', 'e.key_id', 'k.name as key_name', 'k.owner as user_id', 'e.family', 'e.model', 'e.channel', 'e.status',
      'e.outcome', 'e.latency_ms', 'e.ttft_ms', 'e.prompt_tokens', 'e.completion_tokens', 'e.reasoning_tokens', 'e.cost_usd',
      'e.cached_tokens', 'e.cache_write_5m_tokens', 'e.cache_write_1h_tokens', 'e.image_input_tokens', 'e.image_output_tokens',
      'e.cache_hit', 'e.saved_cost_usd', 'e.batch_id', 'd.retries', 'd.fallbacks', 'd.error_code', 'd.error_message',
    ])
    .where('e.outcome', '!=', VIDEO_CHARGE)
    .where('e.created_at', '>=', cutoff);
}

type Cursor = { createdAt: number; id: number };

/**
 * The ids of one page, newest first by (created_at, id): every filter is an index on
 * (column, created_at) (migrations 0019, 0020), so each store walks one index in order and stops
 * at the page's end, however many rows the filter matches or skips.
 */
function pageIds(db: Db, filter: RequestLogFilter, cutoff: number, cursor: Cursor | undefined, keys: readonly string[] | undefined) {
  const status = filter.status;
  const query = db
    .selectFrom('usage_events as e')
    .select(['e.id', 'e.created_at'])
    .$if(filter.errorCode !== undefined, (qb) => qb.where('e.error_code', '=', filter.errorCode!))
    .$if(filter.family !== undefined, (qb) => qb.where('e.family', '=', filter.family!))
    .where('e.outcome', '!=', VIDEO_CHARGE)
    .where('e.created_at', '>=', Math.max(cutoff, filter.from ?? cutoff))
    .$if(filter.to !== undefined, (qb) => qb.where('e.created_at', '<', filter.to!))
    .$if(filter.model !== undefined, (qb) => qb.where('e.model', '=', filter.model!))
    .$if(filter.channel !== undefined, (qb) => qb.where('e.channel', '=', filter.channel!))
    .$if(filter.requestId !== undefined, (qb) => qb.where('e.request_id', '=', filter.requestId!))
    .$if(filter.batchId !== undefined, (qb) => qb.where('e.batch_id', '=', filter.batchId!))
    .$if(keys !== undefined && keys.length > MAX_KEY_BRANCHES, (qb) => qb.where('e.key_id', 'in', keys!))
    .$if(cursor !== undefined, (qb) =>
      qb.where('e.created_at', '<=', cursor!.createdAt).where((eb) => eb.or([eb('e.created_at', '<', cursor!.createdAt), eb('e.id', '<', cursor!.id)])),
    )
    .$if(status !== undefined && /^\d{3}$/.test(status), (qb) => qb.where('e.status', '=', Number(status)))
    .$if(status !== undefined && /^\dxx$/.test(status), (qb) => qb.where('e.status', '>=', Number(status![0]) * 100).where('e.status', '<', Number(status![0]) * 100 + 100))
    // An error status implies FAILED; saying so lets both stores walk the errors' partial index.
    .$if(status === 'error' || (status !== undefined && /^[4-5]/.test(status)), (qb) => qb.where(FAILED))
    .$if(status === 'success', (qb) => qb.where('e.status', '<', 400).where('e.outcome', '=', 'success'))
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(filter.limit + 1);
  if (keys === undefined || keys.length > MAX_KEY_BRANCHES) return query;
  if (keys.length === 1) return query.where('e.key_id', '=', keys[0]!);
  // One walk per key, merged: a user's keys read like one key each, a quiet one as fast as a busy one.
  const branch = (keyId: string) => db.selectFrom(query.where('e.key_id', '=', keyId).as('b')).selectAll();
  const union = keys.slice(1).reduce((all, keyId) => all.unionAll(branch(keyId)), branch(keys[0]!));
  return db.selectFrom(union.as('u')).select(['u.id', 'u.created_at']).orderBy('u.created_at', 'desc').orderBy('u.id', 'desc').limit(filter.limit + 1);
}

export async function listRequests(db: Db, filter: RequestLogFilter, cutoff: number): Promise<{ rows: RequestLogRow[]; nextBefore: number | null }> {
  const none = { rows: [], nextBefore: null };
  let cursor: Cursor | undefined;
  if (filter.before !== undefined) {
    const at = await db.selectFrom('usage_events').select('created_at').where('id', '=', filter.before).executeTakeFirst();
    if (!at) return none;
    cursor = { createdAt: at.created_at, id: filter.before };
  }
  let keys: string[] | undefined = filter.keyId === undefined ? undefined : [filter.keyId];
  if (filter.ownerId !== undefined) {
    const owned = (await db.selectFrom('api_keys').select('id').where('owner', '=', filter.ownerId).orderBy('id').execute()).map((row) => row.id);
    keys = keys ? keys.filter((id) => owned.includes(id)) : owned;
    if (keys.length === 0) return none;
  }
  const page = await pageIds(db, filter, cutoff, cursor, keys).execute();
  if (page.length === 0) return none;
  const more = page.length > filter.limit;
  if (more) page.length = filter.limit;
  const rows = await logQuery(db, cutoff)
    .where(
      'e.id',
      'in',
      page.map((row) => row.id),
    )
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .execute();
  return { rows, nextBefore: more ? page[page.length - 1]!.id : null };
}

/** One entry, by its entry id, with its headers and bodies; `ownerId` limits it to that user's keys. */
export async function getRequest(db: Db, entryId: string, cutoff: number, ownerId?: string): Promise<RequestLogDetailRow | undefined> {
  return logQuery(db, cutoff)
    .select(['d.request_headers', 'd.request_body', 'd.response_body', 'd.attempts', 'e.billed_price', 'e.images', 'e.video_seconds'])
    .where('e.entry_id', '=', entryId)
    .$if(ownerId !== undefined, (qb) => qb.where('k.owner', '=', ownerId!))
    .executeTakeFirst();
}
