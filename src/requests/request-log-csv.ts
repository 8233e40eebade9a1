import type { Db } from '../db/connect.js';
import { cell } from '../usage/usage-csv.js';
import { listRequests, type RequestLogFilter, type RequestLogRow } from './request-log-query.js';

/** The most requests one export holds; a wider range is exported in parts (narrow `from`/`to`). */
export const MAX_CSV_ROWS = 100_000;

/** Entries read per query: the list's own paged walk (same indexes, same order), larger pages. */
const CSV_PAGE = 1000;

const COLUMNS = [
  'time', 'request_id', 'status', 'outcome', 'error_code', 'family', 'model', 'key', 'user', 'channel',
  // Every billed part of the tokens (issue 35), so each row's cost can be recomputed from its own columns.
  'prompt_tokens', 'cached_input_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'image_input_tokens',
  'completion_tokens', 'reasoning_tokens', 'image_output_tokens', 'cost_usd', 'cache_hit', 'saved_cost_usd', 'latency_ms', 'ttfb_ms', 'retries', 'fallbacks', 'error_message',
] as const;

export interface CsvScope {
  /** Operators get the channel and the key owner's email; key holders neither. */
  operator: boolean;
  /** User id → the email (or name) the console shows. */
  userNames: ReadonlyMap<string, string>;
}

/**
 * The requests the filter matches as CSV lines, header first, newest first, at most
 * MAX_CSV_ROWS: the list's query page after page, so an export reads as the page does and
 * streams (a line per request, never the whole file in memory). Names, not ids, where the page
 * shows names (the key's name, the owner's email).
 */
export async function* requestLogCsv(db: Db, filter: Omit<RequestLogFilter, 'limit' | 'before'>, cutoff: number, scope: CsvScope): AsyncGenerator<string> {
  yield COLUMNS.join(',') + '\r\n';
  let before: number | undefined;
  let written = 0;
  while (written < MAX_CSV_ROWS) {
    const { rows, nextBefore } = await listRequests(db, { ...filter, before, limit: Math.min(CSV_PAGE, MAX_CSV_ROWS - written) }, cutoff);
    if (rows.length > 0) yield rows.map((row) => line(row, scope)).join('');
    written += rows.length;
    if (nextBefore === null) return;
    before = nextBefore;
  }
}

function line(row: RequestLogRow, { operator, userNames }: CsvScope): string {
  const values: Record<(typeof COLUMNS)[number], string | number | null> = {
    time: new Date(row.created_at).toISOString(),
    request_id: row.request_id,
    status: row.status,
    outcome: row.outcome,
    error_code: row.error_code,
    family: row.family,
    model: row.model || null,
    key: row.key_name ?? row.key_id,
    user: operator && row.user_id !== null ? (userNames.get(row.user_id) ?? row.user_id) : null,
    channel: operator ? row.channel : null,
    prompt_tokens: row.prompt_tokens,
    cached_input_tokens: row.cached_tokens,
    cache_write_5m_tokens: row.cache_write_5m_tokens,
    cache_write_1h_tokens: row.cache_write_1h_tokens,
    image_input_tokens: row.image_input_tokens,
    completion_tokens: row.completion_tokens,
    reasoning_tokens: row.reasoning_tokens,
    image_output_tokens: row.image_output_tokens,
    cost_usd: row.cost_usd,
    cache_hit: Number(row.cache_hit),
    saved_cost_usd: Number(row.saved_cost_usd),
    latency_ms: row.latency_ms,
    ttfb_ms: row.ttft_ms,
    retries: row.retries ?? 0,
    fallbacks: row.fallbacks ?? 0,
    error_message: row.error_message,
  };
  return COLUMNS.map((name) => {
    const value = values[name];
    return value === null || value === undefined ? '' : typeof value === 'number' ? String(value) : cell(value);
  }).join(',') + '\r\n';
}
