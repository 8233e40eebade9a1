import type { FastifyRequest } from 'fastify';
import type { Channel } from './gateway/channel.js';
import type { UpstreamClient } from './gateway/upstream-client.js';
import type { KeyStore } from './keys/key-store.js';
import type { Db } from './db/connect.js';
import type { GatewayConfig } from './config/schema.js';
import type { RunningSimulator } from './simulator/server.js';
import type { UsageRecorder } from './usage/usage-recorder.js';
import type { RequestLog } from './requests/request-log.js';
import type { Redis } from 'ioredis';
import type { InstanceRegistry } from './db/instance-registry.js';
import type { CircuitBreakers } from './gateway/circuit-breaker.js';
import type { ChannelControl } from './gateway/channel-control.js';
import type { ChannelHealth } from './gateway/channel-health.js';
import type { AuthFailureGuard } from './gateway/auth-failure-guard.js';
import type { RetryPolicy } from './gateway/retry-policy.js';
import type { Tracing } from './telemetry/tracing.js';
import type { Catalog } from './catalog/catalog.js';
import type { PriceBook } from './catalog/price-book.js';
import type { CatalogStore } from './catalog/catalog-store.js';
import type { CatalogSync } from './catalog/catalog-sync.js';
import type { RuntimeChannelStore } from './gateway/channel-store.js';
import type { McpDeps } from './gateway/mcp/mcp-deps.js';
import type { StickyLoad } from './gateway/sticky-load.js';
import type { ResponseHomes } from './gateway/response-homes.js';
import type { ResponseCache } from './cache/response-cache.js';
import type { FileStore } from './files/file-store.js';

/** What the gateway's routes share, built once in main.ts (`app.gateway`). */
export interface GatewayDeps {
  config: GatewayConfig;
  db: Db;
  /**
   * Where the console and reports read (issue 22): on SQLite, worker threads with read-only
   * connections (db/sqlite-reader.ts), so a long read never holds the event loop; on PostgreSQL,
   * `db` itself. Selects only.
   */
  readDb: Db;
  keys: KeyStore;
  /** Shared Redis (REDIS_URL), when the gateway runs as several instances. */
  redis: Redis | undefined;
  /** With Redis: this instance among the others, and whether Redis's figures are complete (issue 23). */
  instances?: InstanceRegistry | undefined;
  usage: UsageRecorder;
  requestLog: RequestLog;
  /** The exact response cache (issue 32): off unless a key, a model or the global switch turns it on. */
  responseCache: ResponseCache;
  /** The routable channels (enabled ones, runtime settings applied); replaced whole when an operator changes them. */
  channels: readonly Channel[];
  /** The models served and known (spec, operator, built-in sheet): validation, routing and the console read it. */
  catalog: Catalog;
  /** Which price each (channel, model) pays (catalog/price-book.ts). */
  prices: PriceBook;
  /** The admin API's models, prices and channels in the database, and their revision. */
  catalogStore: CatalogStore;
  /** Re-reads the stored catalog when its revision moves (every instance, within seconds). */
  catalogSync: CatalogSync;
  /** Channels added or changed at runtime, credentials sealed (gateway/channel-store.ts). */
  channelStore: RuntimeChannelStore;
  /** Every channel, enabled or not, and the runtime settings (gateway/channel-control.ts). */
  channelControl: ChannelControl;
  /** Recent upstream attempts per channel (gateway/channel-health.ts). */
  channelHealth: ChannelHealth;
  /** Disables a channel after repeated vendor 401/403 when configured (issue 35, gateway/auth-failure-guard.ts). */
  authFailures?: AuthFailureGuard;
  /** The MCP gateway (issue 31): upstream servers, client sessions, upstream calls and health. */
  mcp: McpDeps;
  upstream: UpstreamClient;
  circuits: CircuitBreakers;
  /** Recent traffic per channel and where recent conversations went, for bounded-load sticky routing (gateway/sticky-load.ts). */
  stickyLoad?: StickyLoad;
  /** Which channel stored each Responses answer, for `previous_response_id` (gateway/response-homes.ts). */
  responseHomes?: ResponseHomes;
  retryPolicy: RetryPolicy;
  /** The built-in simulators by vendor, when running. */
  simulators: ReadonlyMap<string, RunningSimulator>;
  /** OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/telemetry/). */
  tracing: Tracing | undefined;
  /** The base URL clients reach us at, for links we hand out. */
  /**
   * The base of links the gateway hands out: GATEWAY_PUBLIC_URL, else the origin the request was
   * made to (its Host, or X-Forwarded-Host/-Proto when GATEWAY_TRUST_PROXY allows), else the
   * listen address (no request: the OpenAPI document's server).
   */
  publicUrl: (request?: FastifyRequest) => string;
  /** The files keys uploaded and the batch output files (issue 46, files/file-store.ts); absent: no Files API. */
  files?: FileStore | undefined;
  now: () => number;
}
