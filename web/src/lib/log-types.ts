// The shapes of the console's logs: the request log and the video tasks (docs/console.md).

/** The request log (GET /admin/api/requests, /console/api/requests). */
export interface RequestEntry {
  /** The log entry's id (detail and cursor). */
  id: string;
  /** The x-request-id the client got. */
  request_id: string;
  created_at: string;
  key_id: string | null;
  key_name: string | null;
  user_id: string | null;
  family: string | null;
  model: string | null;
  channel: string | null;
  status: number | string | null;
  latency_ms: number | null;
  ttfb_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cost_usd: number | null;
  /** Answered from the response cache (issue 32): no upstream was called. */
  cache_hit?: boolean;
  /** On a hit: what the answer would have cost, less what the hit cost. */
  saved_cost_usd?: number;
  retries: number | null;
  fallbacks: number | null;
  /** success, error, stream_error or client_disconnect. */
  outcome: string;
  error_code: string | null;
  error_message: string | null;
}

/** One line of a request's bill (issue 21). */
export interface CostLine {
  dimension: string;
  quantity: number;
  /** USD per 1M tokens; per image; per second of video. */
  unit_usd: number;
  usd: number;
}

export interface RequestDetail extends RequestEntry {
  request_headers: Record<string, string> | null;
  request_body: string | null;
  response_body: string | null;
  cached_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  cost_lines: CostLine[];
  /** Each upstream attempt in order (retries, fallbacks); empty when no upstream was called. */
  attempts: Attempt[];
}

export interface Attempt {
  /** Null for key holders. */
  channel: string | null;
  status: number | null;
  latency_ms: number;
  error_code: string | null;
  error_message: string | null;
  /** The vendor's own error text (operators only; null for key holders). */
  vendor_message: string | null;
}

export interface Page<T> {
  data: T[];
  next_before: string | null;
}

export interface VideoTask {
  id: string;
  model: string;
  status: string;
  progress: number | null;
  channel: string | null;
  key_id: string | null;
  key_name: string | null;
  created_at: string;
  finished_at: string | null;
  result_url: string | null;
  error: { code: string; message: string } | null;
}
