import type { ColumnType, Generated } from 'kysely';

/** A column writers added later may leave out (its default or 0 is written), always present when read. */
type OptionalOnInsert<T> = ColumnType<T, T | undefined, T>;

/** Row types of every table; timestamps are Unix milliseconds. */
export interface ApiKeyTable {
  id: string;
  name: string;
  /** First characters of the secret, shown so an operator can recognise a key. */
  prefix: string;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  secret_hash: string;
  /** JSON array of model ids, or null for every model. */
  models: string | null;
  /** JSON array of endpoint families, or null for every family. */
  endpoints: string | null;
  tier: string | null;
  rpm: number | null;
  tpm: number | null;
  budget_usd: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  /** When an operator disabled the key (0003); null while it is enabled. */
  disabled_at: number | null;
  /** The user the key belongs to (0006); `operator` for keys made by the admin API, CLI or bootstrap. */
  owner: string;
  /** Requests the key may have in flight at once (0008); null: no cap. */
  max_parallel?: number | null;
  /** MCP servers and tools the key may use (0022), JSON `{server: tools[] | null}`; null: none. */
  mcp?: string | null;
  /** Response cache (0023): 1 on, 0 off, null follows the model's or the global setting. */
  cache_enabled?: number | null;
  /** Default TTL of the key's cache entries in seconds (0023); null: the model's or global one. */
  cache_ttl_s?: number | null;
  /** Operator-set shared cache namespace (0023); null: entries are scoped to the key's owner. */
  cache_namespace?: string | null;
  /** Response cache match mode (0028): exact, semantic, or null to follow the model's or the global one. */
  cache_mode?: string | null;
  /** The limits an operator set on the key (0030, keys/operator-limits.ts), JSON; null: none. */
  operator_limits?: string | null;
}

/** Operators and key holders (0005). `operator` is built in and signs in with the admin token. */
export interface UserTable {
  id: string;
  /** Null only for the built-in operator. */
  email: string | null;
  name: string;
  role: 'operator' | 'user';
  /** argon2id (PHC string); null until the invitation is accepted, and for the built-in operator. */
  password_hash: string | null;
  /** Caps on the keys the user makes; null: no cap. */
  budget_usd: number | null;
  rpm: number | null;
  tpm: number | null;
  /** JSON arrays of the model ids and endpoint families the user may grant; null: all. */
  models: string | null;
  families: string | null;
  disabled_at: number | null;
  created_at: number;
}

/** Console sessions (0005): the cookie's token is stored as its SHA-256 only. */
export interface SessionTable {
  token_hash: string;
  user_id: string;
  csrf_token: string;
  method: 'admin_token' | 'password';
  /** For admin-token sessions: the admin token's hash at sign-in; a replaced token ends them. */
  admin_token_hash: string | null;
  created_at: number;
  expires_at: number;
}

/** Single-use invitation links (0005), stored as the token's SHA-256. */
export interface InvitationTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SettingTable {
  name: string;
  value: string;
}

export interface VideoTaskTable {
  /** Our public id (`asyntask_…` or a numeric-looking id for /videoalt). */
  id: string;
  key_id: string;
  /** Which surface created it: 'video-generations' or 'videoalt'. */
  surface: string;
  /** The /videoalt capability that created it (text2video, image2video, multi-image2video). */
  capability: string | null;
  model: string;
  channel: string;
  upstream_id: string;
  status: string;
  progress: number;
  /** JSON: the validated client request. */
  request: string;
  /** JSON: the last upstream task state as our VideoTask result (urls, durations). */
  result: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  next_poll_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  charged: number;
  /** Last time the upstream was asked about this task (0002). */
  polled_at: number | null;
  /** Polls that failed in a row; the task fails after a few (0002). */
  poll_failures: number;
  /** The client's own id for the task (Kling `external_task_id`), unique per key (0002). */
  external_id: string | null;
  /** Worst-case cost held against the key's budget while the task runs (0007). */
  reserved_usd: number;
}

export interface AssetTable {
  id: string;
  key_id: string;
  name: string | null;
  asset_type: string;
  status: string;
  source_url: string | null;
  file_name: string | null;
  mime_type: string | null;
  size_bytes: number | null;
  created_at: number;
  deleted_at: number | null;
}

export interface UsageEventTable {
  id: Generated<number>;
  /** The gateway's own id for the event (0011): random, unique; the request log's entry id. */
  entry_id: string | null;
  /** The x-request-id the client got (its own, or the gateway's): searchable, not unique. */
  request_id: string;
  key_id: string | null;
  model: string;
  channel: string | null;
  family: string;
  status: number;
  outcome: string;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  images: number;
  video_seconds: number;
  cost_usd: number;
  latency_ms: number;
  ttft_ms: number | null;
  created_at: number;
  /** The error code the client read (as the request log shows it), null when it read none (0020). */
  error_code?: string | null;
  /** Of prompt_tokens: read from the vendor's prompt cache, written to it (5 min, 1 h), image tokens (0017). */
  cached_tokens: OptionalOnInsert<number>;
  cache_write_5m_tokens: OptionalOnInsert<number>;
  cache_write_1h_tokens: OptionalOnInsert<number>;
  image_input_tokens: OptionalOnInsert<number>;
  /** Of completion_tokens: image tokens (0017). */
  image_output_tokens: OptionalOnInsert<number>;
  /** The price it was billed at, as JSON (per image and per second flattened); null when unpriced (0017). */
  billed_price: OptionalOnInsert<string | null>;
  /** 1 when the answer came from the response cache (0023). */
  cache_hit: OptionalOnInsert<number>;
  /** What the cached answer would have cost, less what the hit cost (0023). */
  saved_cost_usd: OptionalOnInsert<number>;
  /** The batch the request was a line of (0033, issue 46); null for every other request. */
  batch_id?: string | null;
}

/** The response cache's entries (0023, cache/cache-store.ts). */
export interface ResponseCacheTable {
  /** sha256 hex of family, model, normalised body and namespace. */
  id: string;
  /** Whose entries these are: `user:<id>`, `key:<id>` or `shared:<name>`, with any sub-namespace. */
  scope: string;
  family: string;
  model: string;
  /** The answer in its family's non-stream JSON form. */
  body: string;
  /** The SSE text of a streamed miss, replayed as is when the variant matches. */
  stream: string | null;
  stream_variant: string | null;
  /** The Usage of the answer, JSON. */
  usage: string;
  channel: string | null;
  bytes: number;
  created_at: number;
  expires_at: number;
}

/** Semantic mode's questions where instances share them (0029, cache/db-semantic-questions.ts). */
export interface CacheQuestionTable {
  /** sha256 hex of family, model, scope and the request without its last user turn. */
  bucket: string;
  entry_id: string;
  /** The question's unit embedding, float32 little-endian. */
  vector: Uint8Array;
  created_at: number;
  expires_at: number;
}

/** A file of /v1/files or a batch's output (0031, files/). Times in epoch ms. */
export interface FileTable {
  id: string;
  key_id: string;
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: string;
  /** `uploading` while its content streams in, `ready` once kept whole. */
  status: string;
}

/** A file's content on a shared store, in order of `seq` (0031, files/db-file-store.ts). */
export interface FileChunkTable {
  file_id: string;
  seq: number;
  data: Uint8Array;
}

/** Who fills a missed entry for every instance (0029, cache/db-fill-leases.ts). */
export interface CacheFillLeaseTable {
  id: string;
  holder: string;
  expires_at: number;
}

/** The admin API's cache switches (0023): `*` for the global one, else a model id. */
export interface CacheSettingTable {
  target: string;
  enabled: number;
  ttl_s: number | null;
  /** What a hit costs as a share of the answer's price (0027); null: the file's. */
  hit_cost_fraction?: number | null;
  /** exact or semantic (0028); null: the next switch's. */
  mode?: string | null;
  updated_at: number;
}

/** The request log's part of each request (0009); the rest is its usage event. */
export interface RequestDetailTable {
  /** Its usage event's `entry_id` (0011), the only join between the two. */
  entry_id: string | null;
  request_id: string;
  created_at: number;
  retries: number;
  fallbacks: number;
  error_code: string | null;
  error_message: string | null;
  /** Secrets masked, packed (requests/packed-headers.ts; JSON in rows from before issue 22); null when header logging is off. */
  request_headers: string | null;
  /** Only when body logging is on; cut at the configured length. */
  request_body: string | null;
  response_body: string | null;
  /** Each upstream attempt as JSON (requests/attempts.ts), when there was more than one or one failed (0021). */
  attempts: OptionalOnInsert<string | null>;
}

/** Runtime overrides of a channel's file settings (0010); null keeps the file's value. */
export interface ChannelSettingTable {
  name: string;
  enabled: number | null;
  weight: number | null;
  priority: number | null;
  updated_at: number;
}

/** What the gateway noted about a channel (0026, gateway/channel-state-store.ts): JSON text or null. */
export interface ChannelStateTable {
  name: string;
  last_test: string | null;
  auto_disabled: string | null;
  updated_at: number;
}

/**
 * The ledger summed per hour and day (0018, usage/usage-rollups.ts). Dimensions a grain does not
 * keep, a null key and a null channel are ''.
 */
export interface UsageRollupTable {
  period: 'hour' | 'day';
  grain: 'all' | 'key' | 'model' | 'channel' | 'full';
  /** Start of the hour or the UTC day, epoch ms. */
  bucket: number;
  key_id: string;
  model: string;
  channel: string;
  outcome: string;
  events: number;
  prompt_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  images: number;
  video_seconds: number;
  cost_usd: number;
  /** Sums, for averages: latency of every event, time to first byte of those that have one. */
  latency_ms: number;
  ttft_ms: number;
  ttft_events: number;
  /** Token parts (0025): cache reads and writes, image tokens (0 for rollups of events pruned before it). */
  cached_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  image_input_tokens: number;
  image_output_tokens: number;
  /** Response cache hits and the cost they saved (0027). */
  cache_hits: number;
  saved_cost_usd: number;
  first_at: number;
  last_at: number;
}

/** Models added through the admin API (0014); `families` is a JSON array. */
export interface CatalogModelTable {
  id: string;
  kind: string;
  families: string;
  owned_by: string | null;
  created_at: number;
  updated_at: number;
}

/** Prices set through the admin API (0015): the model's whole price, as JSON. */
export interface ModelPriceTable {
  model: string;
  price: string;
  updated_at: number;
}

/** Channels added or changed at runtime (0016): the definition as JSON, credentials sealed apart. */
export interface RuntimeChannelTable {
  name: string;
  definition: string;
  secrets: string | null;
  created_at: number;
  updated_at: number;
}

/** MCP servers published by an operator (0022): the definition as JSON, headers and tokens sealed apart. */
export interface McpServerTable {
  name: string;
  definition: string;
  secrets: string | null;
  created_at: number;
  updated_at: number;
}

/** A client's MCP session with the gateway (0022): `upstreams` is JSON `{server: {sessionId, protocolVersion}}`. */
export interface McpSessionTable {
  id: string;
  key_id: string;
  /** The server of `/mcp/{server}`, or `*` for the aggregate `/mcp`. */
  scope: string;
  upstreams: string;
  created_at: number;
  used_at: number;
}

/** The channel that stored a Responses answer (issue 33, gateway/response-homes.ts). */
export interface ResponseChannelTable {
  response_id: string;
  channel: string;
  created_at: number;
}

/** A batch of the Batch API (0032, batches/batch-repo.ts); times in epoch ms. */
export interface BatchTable {
  id: string;
  key_id: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  created_at: number;
  expires_at: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  output_file_id: string | null;
  error_file_id: string | null;
  /** Seconds after creation the output and error files expire; null: they do not. */
  output_expires_after: number | null;
  total: number;
  completed: number;
  failed: number;
  /** JSON: `[{code, message, line?, param?}]` of a failed validation; null: none. */
  errors: string | null;
  /** JSON object of the client's metadata; null: none. */
  metadata: string | null;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  lease_owner: string | null;
  lease_until: number | null;
}

/** One input line of a batch (0032). */
export interface BatchLineTable {
  batch_id: string;
  /** 1-based line number in the input file. */
  line: number;
  /** `batch_req_…`: the output line's id and the x-request-id its request ran with. */
  request_id: string;
  custom_id: string;
  model: string;
  /** JSON: the line's `body`. */
  body: string;
  state: string;
  /** JSON: its output or error file line once it ended; null before. */
  outcome: string | null;
  channel: string | null;
  upstream_id: string | null;
  cost_usd: number;
}

export interface Database {
  batches: BatchTable;
  batch_lines: BatchLineTable;
  api_keys: ApiKeyTable;
  settings: SettingTable;
  video_tasks: VideoTaskTable;
  assets: AssetTable;
  usage_events: UsageEventTable;
  usage_rollups: UsageRollupTable;
  request_details: RequestDetailTable;
  channel_settings: ChannelSettingTable;
  channel_state: ChannelStateTable;
  catalog_models: CatalogModelTable;
  model_prices: ModelPriceTable;
  runtime_channels: RuntimeChannelTable;
  mcp_servers: McpServerTable;
  mcp_sessions: McpSessionTable;
  response_channels: ResponseChannelTable;
  users: UserTable;
  sessions: SessionTable;
  invitations: InvitationTable;
  response_cache: ResponseCacheTable;
  cache_settings: CacheSettingTable;
  cache_questions: CacheQuestionTable;
  cache_fill_leases: CacheFillLeaseTable;
  files: FileTable;
  file_chunks: FileChunkTable;
}
