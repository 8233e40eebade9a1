/** The shapes of the gateway's console and admin APIs (docs/console.md; src/api/*\/schemas.ts); the logs' are in log-types.ts. */
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
  /** Held of the budget by requests in progress (single instance only). */
  held_usd?: number;
  /** A per-minute window used up right now (issue 35). */
  rate_limited?: { kind: 'requests' | 'tokens'; model: string; limit: number; until: string } | null;
  /** Response cache (issue 32): true on, false off, null follows the model's or the global switch. */
  cache_enabled?: boolean | null;
  cache_ttl_seconds?: number | null;
  /** Operator-set shared namespace; null: the owner's own entries. */
  cache_namespace?: string | null;
  /** exact or semantic; null follows the model's or the global mode. */
  cache_mode?: 'exact' | 'semantic' | null;
  /** MCP servers it may use, each with its tools or null for all (issue 31); null: no MCP. */
  mcp?: Record<string, string[] | null> | null;
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
  cached_input_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  image_input_tokens: number;
  image_output_tokens: number;
  total_tokens: number;
  images: number;
  video_seconds: number;
  cost_usd: number;
  /** Requests the response cache answered (issue 32), and what they saved. */
  cache_hits?: number;
  saved_cost_usd?: number;
  by_outcome: Record<string, number>;
}

export interface UsageReport {
  group_by: string | null;
  totals: UsageTotals;
  groups: Array<UsageTotals & { group: string; model?: string }>;
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
  /** Every vendor's secret fields by name (GET /admin/api/vendors declares them), masked: the last four characters at most. */
  credentials: Record<string, string | null>;
  headers: Record<string, string>;
  region: string | null;
  /** The non-secret fields its vendor declares that it has (api_version, project, region…). */
  settings?: Record<string, string>;
  /** The fields its vendor marks for the row, secrets masked. */
  row_fields?: Array<{ name: string; label: string; value: string }>;
  max_retries: number;
  timeouts: { connect_ms: number; first_byte_ms: number; idle_ms: number; total_ms: number };
  prices: Record<string, Price> | null;
  circuit: 'closed' | 'open' | 'half_open';
  requests: number;
  error_rate: number | null;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  last_error: { at: string; status: number | null; message: string; vendor_message: string | null } | null;
  /** The span of the health figures, in seconds: this instance's traffic only. */
  window_s: number;
  /** Consecutive vendor 401/403 answers that disable it; null: never. */
  auto_disable_after_auth_failures: number | null;
  /** Why the gateway disabled it on its own; null unless it is disabled for that reason. */
  auto_disabled: { at: string; failures: number; status: number | null; message: string; vendor_message: string | null } | null;
  /** The last test, kept on the server (issue 35). */
  last_test: ChannelTest | null;
}

export interface ChannelTest {
  at?: string;
  reply?: string | null;
  ok: boolean;
  status: number | null;
  latency_ms: number | null;
  model: string | null;
  error: string | null;
  vendor_status?: number | null;
  vendor_message?: string | null;
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
  per_search?: number;
  per_video_second_by_resolution?: Record<string, number>;
  long_context?: Array<{ above_input_tokens: number } & Omit<Price, 'per_image' | 'per_image_by_size' | 'per_video_second' | 'per_video_second_by_resolution' | 'per_search' | 'long_context'>>;
}

export interface CatalogModel {
  id: string;
  vendor: string;
  kind: string;
  families: string[];
  source: 'spec' | 'builtin' | 'file' | 'runtime';
  served: boolean;
  channels: string[];
  /** Only the built-in simulator serves it (free unless priced). */
  simulated?: boolean;
  disabled_channels: string[];
  price: Price | null;
  price_source: 'channel' | 'operator' | 'builtin' | null;
  price_runtime: boolean;
  price_basis: string | null;
}
