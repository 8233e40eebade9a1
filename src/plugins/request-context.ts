import type { UpstreamAttempt } from '../requests/attempts.js';
import type { FastifyRequest } from 'fastify';
import type { GatewayError } from '../errors.js';
import type { EndpointFamily } from '../catalog/models.js';
import type { ApiKey } from '../keys/key-store.js';
import type { Hold } from '../usage/budget-holds.js';
import type { Usage } from '../providers/types.js';
import type { Channel } from '../gateway/channel.js';
import type { UpstreamClient } from '../gateway/upstream-client.js';
import type { KeyStore } from '../keys/key-store.js';
import type { Db } from '../db/connect.js';
import type { GatewayConfig } from '../config/schema.js';
import type { RunningSimulator } from '../simulator/server.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import type { RequestLog } from '../requests/request-log.js';
import type { Redis } from 'ioredis';
import type { InstanceRegistry } from '../db/instance-registry.js';
import type { CircuitBreakers } from '../gateway/circuit-breaker.js';
import type { ChannelControl } from '../gateway/channel-control.js';
import type { ChannelHealth } from '../gateway/channel-health.js';
import type { RetryPolicy } from '../gateway/retry-policy.js';
import type { EndState } from './request-end.js';
import type { RequestTrace, Tracing } from '../telemetry/tracing.js';
import type { Catalog } from '../catalog/catalog.js';
import type { PriceBook } from '../catalog/price-book.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import type { CatalogSync } from '../catalog/catalog-sync.js';
import type { Charge } from '../usage/charge.js';
import type { RuntimeChannelStore } from '../gateway/channel-store.js';

/** Per-request data, on one typed decoration (`request.gw`). */
export interface RequestContext {
  startedAt: number;
  /**
   * The gateway's own id for this request's usage event and log entry (issue 23): random and
   * unique, made when the event is first built. The client's x-request-id is `request.id`.
   */
  entryId?: string | undefined;
  key: ApiKey | undefined;
  family: EndpointFamily | undefined;
  model: string | undefined;
  channel: string | undefined;
  usage: Usage | undefined;
  firstTokenAt: number | undefined;
  /** Set when a stream ended with an error event after its first byte. */
  streamError: GatewayError | undefined;
  /** End-of-request hooks and whether the handler has returned (plugins/request-end.ts). */
  ending?: EndState | undefined;
  /** Tokens counted against the key's tpm at admission, settled to the real usage at the end. */
  reservation?: TokenReservation | undefined;
  /** USD held against the key's budget until the request ends (its worst-case cost). */
  budgetHold?: Hold | undefined;
  /** Upstream attempts repeated on the same channel, and channels tried after the first (access log). */
  retries: number;
  fallbacks: number;
  /** Each upstream attempt, kept once one has failed (requests/attempts.ts; the request log's drawer). */
  attempts?: UpstreamAttempt[] | undefined;
  /** The usage event went to the journal before the answer was sent (plugins/usage-recorder.ts). */
  usageJournaled?: boolean;
  /** The error the client was answered with (the request log). */
  error?: GatewayError | undefined;
  /** The body was over 1 MiB: its upstream JSON is built a slice per turn (gateway/serialize-in-turns.ts). */
  largeBody?: boolean;
  /** The body's text as received, for same-protocol pass-through (Anthropic-native /v1/messages). */
  bodyText?: string | undefined;
  /** The request's and response's text, kept only while body logging is on (the request log). */
  requestText?: string | undefined;
  responseText?: string | undefined;
  /** The charge worked out for `usage` (plugins/usage-recorder.ts), kept while usage stays the same. */
  charge?: { usage: Usage | undefined; value: Charge | undefined } | undefined;
  /** The request's server span when tracing is on (plugins/tracing.ts); upstream attempts are its children. */
  trace: RequestTrace | undefined;
}

export interface TokenReservation {
  /** The counter's id (key × model). */
  counter: string;
  tokens: number;
  /** The end of the window the tokens were counted in (epoch ms). */
  windowEndsAt: number;
}

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
  upstream: UpstreamClient;
  circuits: CircuitBreakers;
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
  now: () => number;
}

/** Route-level options (`config` of a Fastify route). */
export interface RouteOptions {
  /** The endpoint family, for permission checks and usage; omit on public routes. */
  family?: EndpointFamily;
  /** True on routes that need no API key (health, docs, media links). */
  isPublic?: boolean;
  /**
   * A parametric route standing for paths that exist only for some values (the operator's
   * models on the native paths): false answers the ordinary 404 before authentication.
   */
  exists?: (request: FastifyRequest) => boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    gw: RequestContext;
  }
  interface FastifyInstance {
    gateway: GatewayDeps;
  }
  interface FastifyContextConfig extends RouteOptions {}
}
