import { Type, type Static, type TSchema } from 'typebox';
import { SimulatorOptionsSchema } from '../contracts/simulator-options.js';
import { OPERATOR_FAMILIES, OPERATOR_KINDS, MODEL_ID_PATTERN } from '../contracts/endpoint-family.js';
import { PriceSchema, type LongContextTierConfig, type PriceConfig } from '../contracts/price.js';
import { CHANNEL_FIELDS, VENDOR_IDS } from '../providers/registry.js';
import type { ChannelField } from '../providers/channel-fields.js';

export { LongContextTierSchema, PriceSchema } from '../contracts/price.js';
export type { LongContextTierConfig, PriceConfig };

/**
 * The registry's vendors (one line there adds one here). Typed `string`, as before: TypeBox 1
 * infers a union built from an array (not a tuple) as `never`.
 */
const VendorSchema = Type.Unsafe<string>(Type.Union(VENDOR_IDS.map((v) => Type.Literal(v))));

/** A declared channel field's value (providers/channel-fields.ts): its type and constraints. */
function fieldSchema(field: ChannelField): TSchema {
  if (field.type === 'url') return Type.String({ pattern: '^https?://' });
  if (field.type !== 'text') return Type.String();
  return Type.String({
    ...(field.pattern ? { pattern: field.pattern } : {}),
    ...(field.minLength !== undefined ? { minLength: field.minLength } : {}),
    ...(field.maxLength !== undefined ? { maxLength: field.maxLength } : {}),
  });
}

/**
 * The credential and account fields the vendors declare in their folders (issue 43), on the
 * channel itself as before (`api_key:`, `aws_access_key_id:`, `service_account:` …): a vendor's
 * new field is accepted here without a line in this file.
 */
const CREDENTIAL_PROPERTIES: Record<string, TSchema> = Object.fromEntries([...CHANNEL_FIELDS.values()].map((field) => [field.name, Type.Optional(fieldSchema(field))]));

/** A channel's settings: everything but its declared credential fields. */
export const ChannelSettingsSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    vendor: VendorSchema,
    /** Omit to use the vendor's built-in simulator. */
    base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    /** public model id → upstream model name */
    models: Type.Record(Type.String(), Type.String()),
    /**
     * How /v1/responses reaches this channel (vendors that can translate, issue 33): `native`
     * sends it to the server's own Responses API, `translate` serves it through chat completions.
     * Default: native for the vendor's own service (api.openai.com) and the simulator, translate
     * for other base URLs (DeepSeek, vLLM, Ollama speak chat only).
     */
    responses: Type.Optional(Type.Union([Type.Literal('native'), Type.Literal('translate')])),
    /**
     * Prompt caching on requests translated to a vendor that caches only what is marked (Anthropic,
     * issue 33): `auto` (default) places breakpoints where Claude Code does (tools, system, last
     * user turns) unless the client marked some itself; `off` sends only the client's marks.
     */
    prompt_cache: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('off')])),
    /**
     * How a batch's lines reach this channel (issue 46): `native` sends them as one batch of the
     * vendor's own batch API (at its batch price), `gateway` runs them one by one in the background.
     * Default: native for vendors with a batch API (OpenAI itself, Anthropic, Gemini, Azure OpenAI),
     * gateway for other base URLs of OpenAI-compatible servers (many lack /v1/batches).
     */
    batch: Type.Optional(Type.Union([Type.Literal('native'), Type.Literal('gateway')])),
    /** Embeddings: the most inputs one call to this upstream may carry, below the vendor's own (a TEI server's max_client_batch_size); larger requests are split. */
    max_inputs_per_call: Type.Optional(Type.Integer({ minimum: 1, maximum: 2048 })),
    /** false: configured but not routed to until an operator enables it (console or admin API). */
    enabled: Type.Optional(Type.Boolean()),
    priority: Type.Optional(Type.Integer({ minimum: -1000, maximum: 1000 })),
    weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    /**
     * Disable the channel after this many consecutive 401/403 answers from its vendor (issue 35:
     * a revoked or wrong credential); 0 never does. Absent: `routing.auto_disable_after_auth_failures`
     * (off unless set). An operator's re-enable clears the reason.
     */
    auto_disable_after_auth_failures: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    timeouts: Type.Optional(
      Type.Object(
        {
          connect_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          first_byte_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          idle_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          total_ms: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    simulator: Type.Optional(SimulatorOptionsSchema),
    /** Prices of this channel's requests, by public model id: win over `prices` and the built-in sheet. */
    prices: Type.Optional(Type.Record(Type.String({ minLength: 1 }), PriceSchema)),
  },
  { additionalProperties: false },
);

export const ChannelSchema = Type.Object({ ...ChannelSettingsSchema.properties, ...CREDENTIAL_PROPERTIES }, { additionalProperties: false });

/** Retry and circuit-breaker tuning shared by all channels. */
export const RoutingSchema = Type.Object(
  {
    /** Consecutive failures that open a channel's circuit. */
    circuit_threshold: Type.Optional(Type.Integer({ minimum: 1 })),
    /** How long an open circuit parks its channel before one probe is let through. */
    circuit_cool_down_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    retry_base_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    retry_max_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** A Retry-After longer than this moves on to the next channel instead of waiting. */
    retry_max_wait_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Every channel's `auto_disable_after_auth_failures` where it sets none; absent or 0: off. */
    auto_disable_after_auth_failures: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    /** Keep each conversation on one channel of its priority group (prompt caches); default true (gateway/sticky-route.ts). */
    sticky_sessions: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Per-minute limits of one model in a tier; an absent field is no limit. */
export const ModelLimitsSchema = Type.Object(
  {
    rpm: Type.Optional(Type.Integer({ minimum: 1 })),
    tpm: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** A tier: public model id (or `default`, for models not listed) → limits. */
export const TierSchema = Type.Record(Type.String({ minLength: 1 }), ModelLimitsSchema);

/** Background polling of video tasks (tasks/poller.ts); the defaults suit production. */
export const VideoTasksSchema = Type.Object(
  {
    /** How long a claim on a task lasts unless renewed; a dead instance's tasks move on after this. */
    lease_ms: Type.Optional(Type.Integer({ minimum: 100 })),
    /** How often each instance looks for due tasks. */
    poll_tick_ms: Type.Optional(Type.Integer({ minimum: 10 })),
  },
  { additionalProperties: false },
);

/** The Batch API's runner (issue 46, batches/batch-runner.ts). */
export const BatchesSchema = Type.Object(
  {
    /** Lines of one batch the gateway runs at once (default 8): room is left for interactive traffic. */
    lines_in_flight: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
    /** How often each instance looks for batches to drive (default 1000). */
    tick_ms: Type.Optional(Type.Integer({ minimum: 10 })),
    /** How long a claim on a batch lasts unless renewed (default 30 s); a dead instance's batches move on after this. */
    lease_ms: Type.Optional(Type.Integer({ minimum: 100 })),
    /** The longest a line waits on its key's rpm/tpm before it tries again (default 60000: a rate limit's window). */
    retry_wait_max_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 600_000 })),
    /** The completion window `24h` stands for, in seconds (default 86400; shorter for tests). */
    completion_window_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  },
  { additionalProperties: false },
);

/** The request log (requests/request-log.ts): how long it keeps requests, and what of them. */
export const RequestLogSchema = Type.Object(
  {
    /** Days a request stays in the log (default 7). Usage reports keep their figures regardless. */
    retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    /** Keep each request's headers, secrets masked (default true). */
    headers: Type.Optional(Type.Boolean()),
    /** Keep request and response bodies (default false): they may hold personal data. */
    bodies: Type.Optional(Type.Boolean()),
    /** Bodies are cut past this many characters (default 16384). */
    max_body_chars: Type.Optional(Type.Integer({ minimum: 256, maximum: 1048576 })),
  },
  { additionalProperties: false },
);

/** A model the operator serves besides the spec's (issue 21): its public id, what it makes, where it is served. */
export const ModelSchema = Type.Object(
  {
    id: Type.String({ pattern: MODEL_ID_PATTERN, description: 'Public model id: letters, digits and . _ @ / + - (no colon), at most 128 characters' }),
    kind: Type.Unsafe<(typeof OPERATOR_KINDS)[number]>({ type: 'string', enum: [...OPERATOR_KINDS] }),
    /** Endpoint families it is accepted on; by default those of its kind. */
    families: Type.Optional(Type.Array(Type.Unsafe<(typeof OPERATOR_FAMILIES)[number]>({ type: 'string', enum: [...OPERATOR_FAMILIES] }), { minItems: 1, uniqueItems: true })),
    /** `owned_by` in /v1/models; the channel's vendor when absent. */
    owned_by: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

/**
 * An upstream MCP server the gateway publishes (issue 31): Streamable HTTP only. Its name is the
 * prefix of its tools on the aggregate `/mcp` (`<name>__<tool>`), so it has no `_`: the first `__`
 * of a tool name always ends the server's name. `auth` and `headers` are credentials: sealed at
 * rest when given through the admin API, never shown.
 */
export const MCP_SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9-]{0,62}$';
export const McpAuthSchema = Type.Union([
  Type.Object({ type: Type.Literal('none') }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('bearer'), token: Type.String({ minLength: 1, maxLength: 8192 }) }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal('header'), header: Type.String({ minLength: 1, maxLength: 128, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }), value: Type.String({ minLength: 1, maxLength: 8192 }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal('oauth_client_credentials'),
      token_url: Type.String({ minLength: 1, maxLength: 2048 }),
      client_id: Type.String({ minLength: 1, maxLength: 512 }),
      client_secret: Type.String({ minLength: 1, maxLength: 8192 }),
      scope: Type.Optional(Type.String({ maxLength: 1024 })),
    },
    { additionalProperties: false },
  ),
]);
export const McpServerSchema = Type.Object(
  {
    name: Type.String({ pattern: MCP_SERVER_NAME_PATTERN, description: 'Letters, digits and -: the prefix of its tools on /mcp (<name>__<tool>)' }),
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'The Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp' }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** How the gateway authenticates there; absent: nothing. */
    auth: Type.Optional(McpAuthSchema),
    /** Static headers sent upstream (sealed like credentials). */
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 128, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }), Type.String({ maxLength: 8192 }))),
    /** Tools published; absent: every tool the server lists. */
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { uniqueItems: true, maxItems: 1000 })),
    /** Per upstream request, milliseconds (default 60000). */
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
    /** Most bytes of one upstream answer (a tool result, a resource), counted as they arrive; default GATEWAY_MCP_MAX_RESULT_BYTES. */
    max_result_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1024 * 1024 * 1024 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type McpServerConfig = Static<typeof McpServerSchema>;
export type McpAuthConfig = Static<typeof McpAuthSchema>;

/** One switch of the response cache (issue 32): on or off, and the TTL of the entries it makes. */
export const CacheModeSchema = Type.Union([Type.Literal('exact'), Type.Literal('semantic')]);

export const CacheSwitchSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    /** Default TTL of new entries in seconds (default 3600). */
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    /** exact (default) or semantic: also a similar last user message (needs `cache.semantic`). */
    mode: Type.Optional(CacheModeSchema),
  },
  { additionalProperties: false },
);

/** Semantic mode (issue 32): the embedding model the last user message is embedded with, and the match bar. */
export const SemanticCacheSchema = Type.Object(
  {
    /** A public embedding model; embedded through the gateway's own /v1/embeddings with the caller's key. */
    embedding_model: Type.String({ minLength: 1 }),
    /** Cosine similarity a stored question must reach to be served (default 0.95). */
    threshold: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1 })),
    /** SQLite: questions the in-process index keeps (default 10000); the oldest go first. */
    max_entries: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    /** PostgreSQL and Redis: the newest questions of a bucket one lookup compares (default 200). */
    bucket_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  },
  { additionalProperties: false },
);

/** The exact response cache (cache/, docs/cache.md): off unless a key, a model or this turns it on. */
export const CacheSchema = Type.Object(
  {
    /** The global switch (default off); a model's switch wins over it, a key's over both. */
    enabled: Type.Optional(Type.Boolean()),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    /** Per public model id. */
    models: Type.Optional(Type.Record(Type.String({ minLength: 1 }), CacheSwitchSchema)),
    /** What a hit costs as a share of the answer's price (default 0: free). */
    hit_cost_fraction: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    /** Store answers that end in tool calls the client must run (default false). */
    cache_tool_calls: Type.Optional(Type.Boolean()),
    /** The store's size cap in bytes (default 256 MiB); past it, the tenants holding the most lose their oldest entries first (cache/tenant-shares.ts). */
    max_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
    /** How often expired entries are removed and the cap enforced, in the background (default 60). */
    sweep_interval_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    /** Where entries live: the gateway's database (default) or Redis (needs REDIS_URL); GATEWAY_CACHE_STORE wins. */
    store: Type.Optional(Type.Union([Type.Literal('database'), Type.Literal('redis')])),
    /** With the Redis store: the prefix of its keys (default `gw:cache:`), so gateways sharing a Redis keep apart. */
    redis_prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** The global match mode: exact (default) or semantic; a model's and a key's win over it. */
    mode: Type.Optional(CacheModeSchema),
    /** With a shared store: how long an identical miss waits for the instance filling it (default 30). */
    fill_wait_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 600 })),
    semantic: Type.Optional(SemanticCacheSchema),
  },
  { additionalProperties: false },
);

export const FileConfigSchema = Type.Object(
  {
    /** Models served besides the spec's; a channel may also map a model of the built-in price sheet. */
    models: Type.Optional(Type.Array(ModelSchema, { maxItems: 10_000 })),
    /** false: no built-in prices; only `prices` (and the admin API's) cost anything. */
    builtin_prices: Type.Optional(Type.Boolean()),
    channels: Type.Optional(Type.Array(Type.Unsafe<ChannelConfig>(ChannelSchema))),
    /** Upstream MCP servers published on /mcp (issue 31); the admin API's rows win by name. */
    mcp_servers: Type.Optional(Type.Array(McpServerSchema, { maxItems: 1000 })),
    routing: Type.Optional(RoutingSchema),
    /** Rate-limit tiers by name; a key without a tier uses the tier named `default`, if any. */
    tiers: Type.Optional(Type.Record(Type.String({ minLength: 1 }), TierSchema)),
    /** Prices by public model id; they replace the built-in sheet's entry for the model. */
    prices: Type.Optional(Type.Record(Type.String({ minLength: 1 }), PriceSchema)),
    /** Options for the default simulator channels (those not overridden by `channels`). */
    simulator: Type.Optional(SimulatorOptionsSchema),
    video_tasks: Type.Optional(VideoTasksSchema),
    batches: Type.Optional(BatchesSchema),
    request_log: Type.Optional(RequestLogSchema),
    cache: Type.Optional(CacheSchema),
  },
  { additionalProperties: false },
);

export type FileConfig = Static<typeof FileConfigSchema>;
/**
 * A channel of the configuration file: its settings, and the credential fields its vendor
 * declares by name (read through the declaration: gateway/channel-credentials.ts).
 */
export type ChannelConfig = Static<typeof ChannelSettingsSchema> & { readonly [credentialField: string]: unknown };
export type ModelLimitsConfig = Static<typeof ModelLimitsSchema>;
export type TierConfig = Static<typeof TierSchema>;
export type ModelConfig = Static<typeof ModelSchema>;
export type RequestLogConfig = Static<typeof RequestLogSchema>;
export type CacheConfig = Static<typeof CacheSchema>;

/** The whole configuration, after env and file are read. */
export interface GatewayConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL used in links we hand out (video and image URLs). Derived from the listen address when unset. */
  publicUrl: string | undefined;
  /** GATEWAY_TRUST_PROXY: whose X-Forwarded-* headers count (Fastify's trustProxy: true, a hop count, or addresses/CIDRs). */
  trustProxy?: boolean | number | string[];
  bootstrapKey: string | undefined;
  adminToken: string | undefined;
  /** GATEWAY_SECRET_KEY: 32 bytes (base64 or hex) that encrypt channel credentials stored at runtime. */
  secretKey?: string | undefined;
  /** GATEWAY_SECRET_KEY_PREVIOUS: the key being rotated out; values sealed with it are re-sealed at start. */
  secretKeyPrevious?: string | undefined;
  /**
   * GATEWAY_ALLOW_UNOPENABLE_CHANNELS: start although stored channel credentials cannot be opened
   * (their key is lost); those channels serve nothing and /readyz says not ready (issue 34).
   */
  allowUnopenableChannels?: boolean;
  /** How often a usage journal that cannot be written tries again (tests shorten it). */
  usageJournalProbeMs?: number | undefined;
  /** GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS: allow upstream URLs on link-local and cloud metadata addresses, refused by default (gateway/upstream-guard.ts). */
  allowLinkLocalUpstreams?: boolean;
  bodyLimitBytes: number;
  /** GATEWAY_REQUEST_TIMEOUT_MS: how long a client may take to send a whole request (headers and body); 0 disables. */
  requestTimeoutMs?: number;
  /** GATEWAY_MAX_BODY_BYTES_IN_FLIGHT: request-body bytes one instance holds at once; past it, 503. */
  maxBodyBytesInFlight?: number;
  /** GATEWAY_MAX_BODY_BYTES_PER_KEY: of those, what one API key may hold; past it, 429 for that key. Default: an eighth. */
  maxBodyBytesPerKey?: number;
  /** GATEWAY_MAX_UPSTREAM_BODY_BYTES: most bytes of an upstream body the gateway reads whole (non-streamed answers, error bodies). */
  maxUpstreamBodyBytes?: number;
  /** GATEWAY_MCP_MAX_RESULT_BYTES: most bytes of one upstream MCP answer, for servers without max_result_bytes. */
  mcpMaxResultBytes?: number;
  /** GATEWAY_FILE_MAX_BYTES: the largest file /v1/files takes (OpenAI's 512 MB by default). */
  fileMaxBytes?: number;
  /** GATEWAY_BATCH_FILE_MAX_BYTES: the largest `batch` input file (OpenAI's 200 MB by default). */
  batchFileMaxBytes?: number;
  /** GATEWAY_MCP_SESSIONS_PER_KEY: MCP sessions one key holds at once; a new one ends its least recently used. */
  mcpSessionsPerKey?: number;
  /** GATEWAY_MCP_SESSION_IDLE_MS: an MCP session unused this long ends (its upstream sessions with it). */
  mcpSessionIdleMs?: number;
  /** GATEWAY_SHUTDOWN_TIMEOUT_MS: how long a stop waits for in-flight requests and streams. */
  shutdownTimeoutMs?: number;
  /** GATEWAY_CORS_ORIGINS: origins browsers may call from (`*` for any); empty: CORS off. */
  corsOrigins?: string[];
  logLevel: string;
  /** GATEWAY_WORKERS: processes sharing the port (node:cluster); 1 runs in-process. */
  workers: number;
  /** `postgres://…` switches the store from the embedded SQLite to PostgreSQL. */
  databaseUrl: string | undefined;
  /** `redis://…` shares rate-limit counters and key-cache invalidation between instances. */
  redisUrl: string | undefined;
  /** GATEWAY_CACHE_STORE: where the response cache keeps its entries (wins over the file's `cache.store`). */
  cacheStore?: 'database' | 'redis' | undefined;
  /** GATEWAY_INSTANCE_LEASE_MS: with Redis, how long a dead instance's budget holds outlive it. */
  instanceLeaseMs?: number;
  /** OpenTelemetry traces; absent (off) unless an OTLP endpoint is set (src/telemetry/). */
  tracing?: TracingConfig;
  file: FileConfig;
  /** Where `file` came from, to name a field's line in errors found after loading (unset: no file). */
  fileSource?: ConfigSource;
}

/** The configuration file and the line of each value in it. */
export interface ConfigSource {
  path: string;
  lineOf(segments: ReadonlyArray<string | number>): number | undefined;
}

/**
 * What the gateway itself reads of the OTEL_* variables. The exporter reads the rest
 * (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION, certificates) on its own.
 */
export interface TracingConfig {
  /** OTEL_SERVICE_NAME; without it `service.name` of OTEL_RESOURCE_ATTRIBUTES, else `model-gateway`. */
  serviceName: string | undefined;
  /** OTEL_TRACES_SAMPLER(_ARG): the share of new traces kept, and whether an incoming trace's decision wins. */
  sampler: { ratio: number; parentBased: boolean };
  /** OTEL_BSP_SCHEDULE_DELAY: how long finished spans wait to be sent in one batch. */
  exportDelayMs: number;
}
