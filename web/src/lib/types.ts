/** The shapes of the gateway's console and admin APIs (docs/console.md; src/api/*\/schemas.ts). */
export type Role = 'operator' | 'user';

export interface User {
  id: string;
  email: string | null;
  name: string;
  role: Role;
  budget_usd: number | null;
  rpm: number | null;
  tpm: number | null;
  models: string[] | null;
  families: string[] | null;
  disabled: boolean;
  has_password: boolean;
  created_at: string;
}

export interface SessionAnswer {
  user: User;
  csrf_token: string;
  expires_at: string;
}

export interface Invitation {
  user: User;
  invite_url: string;
  invite_token: string;
  invite_expires_at: string;
}

export type KeyStatus = 'active' | 'disabled' | 'revoked' | 'expired';

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  status: KeyStatus;
  models: string[] | null;
  endpoints: string[] | null;
  tier: string | null;
  rpm: number | null;
  tpm: number | null;
  budget_usd: number | null;
  expires_at: string | null;
  disabled: boolean;
  created_at: string;
  revoked_at: string | null;
  owner: string;
  owner_email: string | null;
  last_used_at: string | null;
  spent_month_usd: number;
  /** Everything it has spent: what its budget counts (lists and the single-key view). */
  spent_usd?: number;
}

export interface CreatedKey extends ApiKey {
  /** The secret, shown this once. */
  key: string;
}

export interface ListAnswer<T> {
  data: T[];
}

export interface ConsoleModel {
  id: string;
  vendor: string;
  families: string[];
  price: Record<string, unknown> | null;
}

export interface UsageTotals {
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

export interface UsageReport {
  group_by: string | null;
  totals: UsageTotals;
  groups: Array<UsageTotals & { group: string; model?: string }>;
}

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
}

export interface Page<T> {
  data: T[];
  next_before: string | null;
}

export interface Channel {
  id: string;
  vendor: string;
  base_url: string;
  simulator: boolean;
  enabled: boolean;
  weight: number;
  priority: number;
  models: string[];
  /** file: the configuration file; runtime: added here or with the admin API; default: a built-in simulator. */
  source: 'file' | 'runtime' | 'default';
  runtime_override: boolean;
  model_map: Record<string, string>;
  /** Masked: the last four characters at most. */
  credentials: { api_key: string | null; access_key: string | null; secret_key: string | null };
  headers: Record<string, string>;
  region: string | null;
  max_retries: number;
  timeouts: { connect_ms: number; first_byte_ms: number; idle_ms: number; total_ms: number };
  prices: Record<string, Price> | null;
  circuit: 'closed' | 'open' | 'half_open';
  requests: number;
  error_rate: number | null;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  last_error: { at: string; status: number | null; message: string } | null;
}

export interface ChannelTest {
  ok: boolean;
  status: number | null;
  latency_ms: number | null;
  model: string | null;
  error: string | null;
}

/** A model's price in USD (issue 21): per 1M tokens by dimension, per image, per video second, long-context tiers. */
export interface Price {
  prompt_per_1m?: number;
  cached_prompt_per_1m?: number;
  cache_write_5m_per_1m?: number;
  cache_write_1h_per_1m?: number;
  completion_per_1m?: number;
  reasoning_per_1m?: number;
  image_prompt_per_1m?: number;
  image_completion_per_1m?: number;
  per_image?: number;
  per_image_by_size?: Record<string, Record<string, number>>;
  per_video_second?: number;
  per_video_second_by_resolution?: Record<string, number>;
  long_context?: Array<{ above_input_tokens: number } & Omit<Price, 'per_image' | 'per_image_by_size' | 'per_video_second' | 'per_video_second_by_resolution' | 'long_context'>>;
}

export interface CatalogModel {
  id: string;
  vendor: string;
  kind: string;
  families: string[];
  source: 'spec' | 'builtin' | 'file' | 'runtime';
  served: boolean;
  channels: string[];
  disabled_channels: string[];
  price: Price | null;
  price_source: 'channel' | 'operator' | 'builtin' | null;
  price_runtime: boolean;
  price_basis: string | null;
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
