import { Type, type Static } from '@sinclair/typebox';

const VendorSchema = Type.Union(
  ['openai', 'volcengine-ark', 'zhipu', 'anthropic', 'gemini', 'alibaba-dashscope', 'kling'].map((v) => Type.Literal(v)),
);

/** Behaviour of a built-in simulator upstream (all optional; defaults answer at once). */
export const SimulatorOptionsSchema = Type.Object(
  {
    first_token_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Stream pacing; 0 streams as fast as possible. */
    tokens_per_second: Type.Optional(Type.Number({ minimum: 0 })),
    /** How long a simulated video task takes from submission to result. */
    video_task_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Answer every request with this HTTP status and the vendor's error body. */
    fault_status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
    /** With fault_status: only the first N requests fail. */
    fault_times: Type.Optional(Type.Integer({ minimum: 1 })),
    fault_retry_after_s: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Cut streams after this many events, without the closing events. */
    cut_stream_after: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const ChannelSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    vendor: VendorSchema,
    /** Omit to use the vendor's built-in simulator. */
    base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    api_key: Type.Optional(Type.String()),
    access_key: Type.Optional(Type.String()),
    secret_key: Type.Optional(Type.String()),
    /** public model id → upstream model name */
    models: Type.Record(Type.String(), Type.String()),
    priority: Type.Optional(Type.Integer()),
    weight: Type.Optional(Type.Integer({ minimum: 1 })),
    max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
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
  },
  { additionalProperties: false },
);

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
  },
  { additionalProperties: false },
);

export const FileConfigSchema = Type.Object(
  {
    channels: Type.Optional(Type.Array(ChannelSchema)),
    routing: Type.Optional(RoutingSchema),
    /** Options for the default simulator channels (those not overridden by `channels`). */
    simulator: Type.Optional(SimulatorOptionsSchema),
  },
  { additionalProperties: false },
);

export type FileConfig = Static<typeof FileConfigSchema>;
export type ChannelConfig = Static<typeof ChannelSchema>;
export type SimulatorOptionsConfig = Static<typeof SimulatorOptionsSchema>;

/** The whole configuration, after env and file are read. */
export interface GatewayConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL used in links we hand out (video and image URLs). Derived from the listen address when unset. */
  publicUrl: string | undefined;
  bootstrapKey: string | undefined;
  adminToken: string | undefined;
  bodyLimitBytes: number;
  logLevel: string;
  /** `postgres://…` switches the store from the embedded SQLite to PostgreSQL. */
  databaseUrl: string | undefined;
  /** `redis://…` shares rate-limit counters and key-cache invalidation between instances. */
  redisUrl: string | undefined;
  file: FileConfig;
}
