import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { GatewayError, isGatewayError } from '../errors.js';
import { verifyAdminToken } from '../keys/bootstrap.js';
import { LabelledCounter, LabelledHistogram, registerIn, UnlabelledGauge } from '../metrics/series.js';
import { onRequestEnd, type EndHook } from './request-end.js';

/** Seconds; model calls run from milliseconds (errors, short replies) to minutes (long streams). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
const UPSTREAM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Our own refusals (per-key limits); upstream 429s are GW_UPSTREAM_RATE_LIMITED and not counted here. */
const REJECTION_CODES = new Set(['GW_RATE_LIMITED', 'GW_QUOTA_EXCEEDED']);

type PromClient = typeof import('prom-client');

/**
 * The metric objects, on one registry per app (tests run several gateways in one process).
 * prom-client keeps the process metrics; ours are allocation-free series it prints (issue 5).
 * prom-client and its process metrics (an event-loop delay monitor, a GC observer) are loaded at
 * the first scrape, so a gateway nobody scrapes never carries them (issue 24); ours count from
 * the start either way.
 */
export interface GatewayMetrics {
  /** The registry with the process metrics and ours, made at the first call. */
  registry(): Promise<Registry>;
  /** Called with prom-client when the registry is made, to add metrics read at scrape time. */
  onRegistry(add: (registry: Registry, prom: PromClient) => void): void;
  requests: LabelledCounter<[family: string, route: string, model: string, channel: string, status: number]>;
  cost: LabelledCounter<[model: string]>;
  duration: LabelledHistogram<[route: string, model: string]>;
  ttft: LabelledHistogram<[route: string, model: string]>;
  upstream: LabelledHistogram<[channel: string, outcome: string]>;
  tokens: LabelledCounter<[model: string, kind: 'prompt' | 'completion']>;
  activeStreams: UnlabelledGauge;
  rejections: LabelledCounter<[code: string]>;
  /** MCP tool calls (issue 31), from their request-log entries. */
  toolCalls: LabelledCounter<[server: string, tool: string, outcome: string]>;
  toolCallDuration: LabelledHistogram<[server: string, outcome: string]>;
}

export function createMetrics(): GatewayMetrics {
  const series = {
    requests: new LabelledCounter({ name: 'gateway_requests_total', help: 'Requests by endpoint family, route pattern, model, channel and HTTP status (401 and 429 included)', labelNames: ['family', 'route', 'model', 'channel', 'status'] }),
    cost: new LabelledCounter({ name: 'gateway_cost_usd_total', help: 'Cost in USD from the price table, by model (video: when a task completes)', labelNames: ['model'] }),
    duration: new LabelledHistogram({ name: 'gateway_request_duration_seconds', help: 'Time from request to the end of the response (streams: to the last event)', labelNames: ['route', 'model'], buckets: LATENCY_BUCKETS }),
    ttft: new LabelledHistogram({ name: 'gateway_time_to_first_token_seconds', help: 'Streams: time from request to the first event written to the client', labelNames: ['route', 'model'], buckets: TTFT_BUCKETS }),
    upstream: new LabelledHistogram({ name: 'gateway_upstream_duration_seconds', help: 'Per upstream attempt: time from sending to the response headers', labelNames: ['channel', 'outcome'], buckets: UPSTREAM_BUCKETS }),
    tokens: new LabelledCounter({ name: 'gateway_tokens_total', help: 'Tokens by model and kind (prompt, completion)', labelNames: ['model', 'kind'] }),
    activeStreams: new UnlabelledGauge({ name: 'gateway_active_streams', help: 'Streaming requests in flight' }),
    rejections: new LabelledCounter({ name: 'gateway_rate_limit_rejections_total', help: "Requests refused by the gateway's own per-key limits", labelNames: ['code'] }),
    toolCalls: new LabelledCounter({ name: 'gateway_mcp_tool_calls_total', help: 'MCP tools/call requests by server, tool (as the upstream names it) and outcome (success, tool_error, denied, rate_limited, error)', labelNames: ['server', 'tool', 'outcome'] }),
    toolCallDuration: new LabelledHistogram({ name: 'gateway_mcp_tool_call_duration_seconds', help: 'MCP tools/call: time from the request to the answer, by server and outcome', labelNames: ['server', 'outcome'], buckets: LATENCY_BUCKETS }),
  };
  const additions: ((registry: Registry, prom: PromClient) => void)[] = [];
  let made: Promise<Registry> | undefined;
  const make = async (): Promise<Registry> => {
    const prom = await import('prom-client');
    const registry = new prom.Registry();
    // The process metrics first, then ours, then the scrape-time gauges: the order they print in.
    prom.collectDefaultMetrics({ register: registry });
    for (const metric of Object.values(series)) registerIn(registry, metric);
    for (const add of additions) add(registry, prom);
    return registry;
  };
  return {
    ...series,
    registry: () => (made ??= make()),
    onRegistry: (add) => void additions.push(add),
  };
}

/**
 * Prometheus metrics at GET /metrics (prom-client), behind the admin token like the admin API:
 * they name models, channels and traffic volumes. Prometheus sends it with
 * `authorization: {credentials_file: ...}` in its scrape config.
 *
 * Labels are bounded: route patterns (never raw URLs), models the channels serve (others are
 * 'other'), channel names and status codes, so no request can add a series of its own.
 */
export function registerMetrics(app: FastifyInstance, metrics: GatewayMetrics = createMetrics()): GatewayMetrics {
  const knownModels = new Set(app.gateway.channelControl.all.flatMap((channel) => Object.keys(channel.models)));
  const modelLabel = (model: string | undefined): string => (model === undefined ? '' : knownModels.has(model) ? model : 'other');

  app.gateway.upstream.observer = (channel, seconds, outcome) => metrics.upstream.series(channel, outcome).observe(seconds);
  // Every usage event, requests and completed video tasks alike, carries its cost.
  app.gateway.usage.subscribe((event) => {
    if (event.family === 'mcp') return observeToolCall(event);
    const cost = Number(event.cost_usd);
    if (cost > 0) metrics.cost.series(modelLabel(event.model)).inc(cost);
  });
  // A tool call's labels are bounded like a model's: a server this instance has talked to and a
  // tool its last tools/list named, else 'other' (a client may ask for any name).
  function observeToolCall(event: { channel?: string | null; model: string; outcome: string; latency_ms: number }): void {
    const health = app.gateway.mcp?.health;
    const server = event.channel ?? '';
    const seen = health && server !== '' ? health.of(server) : undefined;
    const known = seen !== undefined && seen.status !== 'unknown';
    const tool = event.model.startsWith(`${server}__`) ? event.model.slice(server.length + 2) : event.model;
    const serverLabel = known ? server : 'other';
    metrics.toolCalls.series(serverLabel, known && seen.tools?.includes(tool) ? tool : 'other', event.outcome).inc();
    metrics.toolCallDuration.series(serverLabel, event.outcome).observe(event.latency_ms / 1000);
  }
  metrics.onRegistry((registry, prom) => registerScrapeTimeGauges(app, registry, prom.Gauge));

  // Callback hooks, not async ones: no promise per request on the hot path. The end hooks are
  // built once here and get the request as arguments (no closure per request); they run with the
  // request's other end hooks (one close listener; streams' usage is final).
  const observeEnd: EndHook = (_end, request, reply) => observe(request, reply, routeLabel(request));
  const streamEnded: EndHook = () => metrics.activeStreams.dec();
  app.addHook('onRequest', (request, reply, done) => {
    onRequestEnd(request, reply, observeEnd);
    done();
  });
  // `routeOptions` is a getter that builds an object per read, so each hook reads it once.
  app.addHook('preHandler', (request, reply, done) => {
    const { config, url } = request.routeOptions;
    if (config.family && isStreamRequest(request, url)) {
      metrics.activeStreams.inc();
      onRequestEnd(request, reply, streamEnded);
    }
    done();
  });
  app.addHook('onError', (_request, _reply, error, done) => {
    if (isGatewayError(error) && REJECTION_CODES.has(error.code)) metrics.rejections.series(error.code).inc();
    done();
  });

  function observe(request: FastifyRequest, reply: FastifyReply, route: string): void {
    const gw = request.gw as FastifyRequest['gw'] | null;
    const model = modelLabel(gw?.model);
    metrics.requests.series(gw?.family ?? '', route, model, gw?.channel ?? '', reply.raw.statusCode).inc();
    if (!gw) return;
    const now = Date.now();
    metrics.duration.series(route, model).observe((now - gw.startedAt) / 1000);
    if (gw.firstTokenAt !== undefined) metrics.ttft.series(route, model).observe((gw.firstTokenAt - gw.startedAt) / 1000);
    const usage = gw.usage;
    if (usage?.promptTokens) metrics.tokens.series(model, 'prompt').inc(usage.promptTokens);
    if (usage?.completionTokens) metrics.tokens.series(model, 'completion').inc(usage.completionTokens);
  }

  app.get('/metrics', { config: { isPublic: true }, schema: { hide: true } }, async (request, reply) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!token || !(await verifyAdminToken(app.gateway.db, token))) {
      throw new GatewayError('GW_ADMIN_UNAUTHORIZED', 'The metrics need the admin token: Authorization: Bearer <admin token>.');
    }
    const registry = await metrics.registry();
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return metrics;
}

/** Values read when Prometheus scrapes: nothing to keep up to date per request. */
function registerScrapeTimeGauges(app: FastifyInstance, registry: Registry, Gauge: PromClient['Gauge']): void {
  const { circuits, channelControl, usage, requestLog, responseCache } = app.gateway;
  // The response cache's running totals (issue 32), read when scraped: nothing added per request.
  new Gauge({
    name: 'gateway_cache_lookups_total',
    help: 'Response cache lookups by result (hit, miss, bypass) since start',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      // Absent in apps built without it (plugin tests).
      const counts = responseCache?.counts;
      if (!counts) return;
      this.set({ result: 'hit' }, counts.hits);
      this.set({ result: 'miss' }, counts.misses);
      this.set({ result: 'bypass' }, counts.bypasses);
    },
  });
  new Gauge({
    name: 'gateway_cache_coalesced_total',
    help: 'Response cache misses served by an identical miss in flight on this instance (counted as hits too) since start',
    registers: [registry],
    collect() {
      const counts = responseCache?.counts;
      if (counts) this.set(counts.coalesced);
    },
  });
  new Gauge({
    name: 'gateway_cache_bytes_total',
    help: 'Response cache bytes served from and written to the store since start',
    labelNames: ['direction'],
    registers: [registry],
    collect() {
      const counts = responseCache?.counts;
      if (!counts) return;
      this.set({ direction: 'served' }, counts.bytesServed);
      this.set({ direction: 'stored' }, counts.bytesStored);
    },
  });
  new Gauge({
    name: 'gateway_circuit_state',
    help: "Each channel's circuit: 0 closed, 1 half-open, 2 open",
    labelNames: ['channel'],
    registers: [registry],
    collect() {
      for (const channel of channelControl.all) this.set({ channel: channel.name }, circuits.stateOf(channel.name));
    },
  });
  new Gauge({
    name: 'gateway_usage_queue_depth',
    help: 'Usage events waiting for the next database batch',
    registers: [registry],
    collect() {
      this.set(usage.queued);
    },
  });
  new Gauge({
    name: 'gateway_usage_journal_failing',
    help: '1 while the usage journal cannot be written (disk full): billable requests are refused',
    registers: [registry],
    collect() {
      this.set(usage.isJournalFailing ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_request_log_queue_depth',
    help: 'Request log entries waiting for the next database batch',
    registers: [registry],
    collect() {
      this.set(requestLog.queued);
    },
  });
  new Gauge({
    name: 'gateway_request_body_bytes_in_flight',
    help: 'Bytes of request bodies held now (GATEWAY_MAX_BODY_BYTES_IN_FLIGHT caps it)',
    registers: [registry],
    collect() {
      this.set(app.bodyBudget.bytesInFlight);
    },
  });
}

/** The route pattern (`/v1beta/models/gamma-2.5-flash-lite:generateContent`), or 'unmatched' for 404s. */
function routeLabel(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  if (url === undefined || request.is404) return 'unmatched';
  // Most patterns have no escaped colon; skipping the regex keeps the pattern string itself.
  return url.includes('::') ? url.replace(/::/g, ':') : url;
}

/** Chat-shaped bodies ask with `stream: true`; the native surface with the :streamGenerateContent method. */
function isStreamRequest(request: FastifyRequest, url: string | undefined): boolean {
  const body = request.body as { stream?: unknown } | null | undefined;
  return body?.stream === true || (url?.endsWith('streamGenerateContent') ?? false);
}
