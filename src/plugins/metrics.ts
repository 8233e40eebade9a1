import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { GatewayError, isGatewayError } from '../errors.js';
import { verifyAdminToken } from '../keys/bootstrap.js';
import { onRequestEnd } from './request-end.js';

/** Seconds; model calls run from milliseconds (errors, short replies) to minutes (long streams). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
const UPSTREAM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Our own refusals (per-key limits); upstream 429s are GW_UPSTREAM_RATE_LIMITED and not counted here. */
const REJECTION_CODES = new Set(['GW_RATE_LIMITED', 'GW_QUOTA_EXCEEDED']);

/** The metric objects, on one registry per app (tests run several gateways in one process). */
export interface GatewayMetrics {
  registry: Registry;
  requests: Counter<'route' | 'model' | 'status'>;
  duration: Histogram<'route' | 'model'>;
  ttft: Histogram<'route' | 'model'>;
  upstream: Histogram<'channel' | 'outcome'>;
  tokens: Counter<'model' | 'kind'>;
  activeStreams: Gauge;
  rejections: Counter<'code'>;
}

export function createMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    requests: new Counter({ name: 'gateway_requests_total', help: 'Requests by route pattern, model and HTTP status', labelNames: ['route', 'model', 'status'], registers }),
    duration: new Histogram({ name: 'gateway_request_duration_seconds', help: 'Time from request to the end of the response (streams: to the last event)', labelNames: ['route', 'model'], buckets: LATENCY_BUCKETS, registers }),
    ttft: new Histogram({ name: 'gateway_time_to_first_token_seconds', help: 'Streams: time from request to the first event written to the client', labelNames: ['route', 'model'], buckets: TTFT_BUCKETS, registers }),
    upstream: new Histogram({ name: 'gateway_upstream_duration_seconds', help: 'Per upstream attempt: time from sending to the response headers', labelNames: ['channel', 'outcome'], buckets: UPSTREAM_BUCKETS, registers }),
    tokens: new Counter({ name: 'gateway_tokens_total', help: 'Tokens by model and kind (prompt, completion)', labelNames: ['model', 'kind'], registers }),
    activeStreams: new Gauge({ name: 'gateway_active_streams', help: 'Streaming requests in flight', registers }),
    rejections: new Counter({ name: 'gateway_rate_limit_rejections_total', help: "Requests refused by the gateway's own per-key limits", labelNames: ['code'], registers }),
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
  const knownModels = new Set(app.gateway.channels.flatMap((channel) => Object.keys(channel.models)));
  const modelLabel = (model: string | undefined): string => (model === undefined ? '' : knownModels.has(model) ? model : 'other');

  app.gateway.upstream.observer = (channel, seconds, outcome) => metrics.upstream.observe({ channel, outcome }, seconds);

  // A callback hook, not an async one: no promise per request on the hot path.
  // Observed with the request's other end hooks (one close listener; streams' usage is final).
  app.addHook('onRequest', (request, reply, done) => {
    onRequestEnd(request, reply, () => observe(request, reply));
    done();
  });
  app.addHook('preHandler', (request, reply, done) => {
    if (request.routeOptions.config.family && isStreamRequest(request)) {
      metrics.activeStreams.inc();
      onRequestEnd(request, reply, () => metrics.activeStreams.dec());
    }
    done();
  });
  app.addHook('onError', (_request, _reply, error, done) => {
    if (isGatewayError(error) && REJECTION_CODES.has(error.code)) metrics.rejections.inc({ code: error.code });
    done();
  });

  function observe(request: FastifyRequest, reply: FastifyReply): void {
    const route = routeLabel(request);
    const gw = request.gw as FastifyRequest['gw'] | null;
    const model = modelLabel(gw?.model);
    metrics.requests.inc({ route, model, status: reply.raw.statusCode });
    if (!gw) return;
    const now = Date.now();
    metrics.duration.observe({ route, model }, (now - gw.startedAt) / 1000);
    if (gw.firstTokenAt !== undefined) metrics.ttft.observe({ route, model }, (gw.firstTokenAt - gw.startedAt) / 1000);
    const usage = gw.usage;
    if (usage?.promptTokens) metrics.tokens.inc({ model, kind: 'prompt' }, usage.promptTokens);
    if (usage?.completionTokens) metrics.tokens.inc({ model, kind: 'completion' }, usage.completionTokens);
  }

  app.get('/metrics', { config: { isPublic: true }, schema: { hide: true } }, async (request, reply) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!token || !(await verifyAdminToken(app.gateway.db, token))) {
      throw new GatewayError('GW_ADMIN_UNAUTHORIZED', 'The metrics need the admin token: Authorization: Bearer <admin token>.');
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  return metrics;
}

/** The route pattern (`/v1beta/models/gamma-2.5-flash-lite:generateContent`), or 'unmatched' for 404s. */
function routeLabel(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  return url === undefined || request.is404 ? 'unmatched' : url.replace(/::/g, ':');
}

/** Chat-shaped bodies ask with `stream: true`; the native surface with the :streamGenerateContent method. */
function isStreamRequest(request: FastifyRequest): boolean {
  const body = request.body as { stream?: unknown } | null | undefined;
  return body?.stream === true || (request.routeOptions.url?.endsWith('streamGenerateContent') ?? false);
}
