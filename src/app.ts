import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import { GatewayError, isGatewayError } from './errors.js';
import { errorsForRequest } from './api/envelopes.js';
import { renderGeneralError } from './api/general/errors.js';
import { completeOpenApiDocument } from './api/openapi/complete-document.js';
import { docsUi } from './api/openapi/docs-ui.js';
import { lazyCompilers } from './validation/fastify-compilers.js';
import { narrowModelListToKey } from './validation/model-keyed.js';
import { familyOfRoute, registerAuth } from './plugins/auth.js';
import { registerSecurityHeaders } from './plugins/security-headers.js';
import { registerUsageRecording } from './plugins/usage-recorder.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { adminRoutes } from './api/admin/routes.js';
import { cacheRoutes } from './api/cache/routes.js';
import { registerMetrics } from './plugins/metrics.js';
import type { GatewayDeps } from './gateway-deps.js';
import { systemRoutes } from './api/system/routes.js';
import { modelsRoutes } from './api/models/routes.js';
import { chatCompletionsRoutes } from './api/chat-completions/routes.js';
import { generateContentRoutes } from './api/generate-content/routes.js';
import { imagesRoutes } from './api/images/routes.js';
import { messagesRoutes } from './api/messages/routes.js';
import { responsesRoutes } from './api/responses/routes.js';
import { videoGenerationsRoutes } from './api/video-generations/routes.js';
import { videoaltRoutes } from './api/videoalt/routes.js';
import { cloudAssetRoutes } from './api/cloud-asset/routes.js';
import { embeddingsRoutes } from './api/embeddings/routes.js';
import { rerankRoutes } from './api/rerank/routes.js';
import { filesRoutes } from './api/files/routes.js';
import { mcpRoutes } from './api/mcp/routes.js';
import { batchesRoutes } from './api/batches/routes.js';
import { consoleRoutes } from './api/console/routes.js';
import { consoleStaticApp } from './api/console/static-app.js';
import { isStoreUnavailable, storeUnavailable } from './db/store-errors.js';
import { DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, DEFAULT_REQUEST_TIMEOUT_MS } from './config/load.js';
import { registerBodyBudget } from './plugins/body-budget.js';
import { registerJsonBody } from './plugins/json-body.js';
import { clientErrorHandler, frameworkErrors } from './plugins/client-errors.js';
import { registerAccessLog } from './plugins/access-log.js';
import { registerTracing } from './plugins/tracing.js';
import { SignInLimiter } from './users/sign-in-limiter.js';

/** Endpoint families, each a Fastify plugin in its own folder under src/api/. */
const FAMILY_PLUGINS = [systemRoutes, modelsRoutes, chatCompletionsRoutes, messagesRoutes, responsesRoutes, generateContentRoutes, imagesRoutes, videoGenerationsRoutes, videoaltRoutes, cloudAssetRoutes, embeddingsRoutes, rerankRoutes, filesRoutes, batchesRoutes, mcpRoutes, cacheRoutes, adminRoutes, consoleRoutes];

/** An incoming `x-request-id` is kept when it is a plain token (a proxy's or the client's trace id). */
const INCOMING_ID = /^[\w.:@-]{1,128}$/;

/**
 * Request ids: the caller's `x-request-id` when it has one, else a random per-app prefix and a
 * counter, unique across instances and cheap to make. Every answer carries it (security-headers.ts).
 */
function requestIds(): (req: IncomingMessage) => string {
  const prefix = `req_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let count = 0;
  return (req) => {
    const incoming = req.headers['x-request-id'];
    return typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : `${prefix}${(++count).toString(36)}`;
  };
}


/** The app over built dependencies, logging through `logger` (plugins/gateway-logger.ts). */
export async function buildApp(deps: GatewayDeps, logger: FastifyBaseLogger): Promise<FastifyInstance> {
  const requestTimeout = deps.config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: deps.config.bodyLimitBytes,
    // Receiving the whole request (headers and body) has a deadline; Node answers 408 and closes.
    // Responses (long streams) are not limited by it. Node checks it every connectionsCheckingInterval.
    // Node only applies it when the headers' deadline is no later.
    requestTimeout,
    http: {
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(requestTimeout / 4))),
      ...(requestTimeout > 0 ? { headersTimeout: Math.min(60_000, requestTimeout) } : {}),
    },
    genReqId: requestIds(),
    // Our access line replaces Fastify's two lines per request (plugins/access-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    return503OnClosing: true,
    // Fastify takes a hop count too, which its typings leave out.
    ...(deps.config.trustProxy !== undefined ? { trustProxy: deps.config.trustProxy as boolean | string[] } : {}),
    clientErrorHandler: (error, socket) => clientErrorHandler(error, socket, renderGeneralError),
    frameworkErrors: (error, request, reply) => frameworkErrors(error, request, reply, sendError),
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: { compilersFactory: lazyCompilers },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('gateway', deps);
  app.decorateRequest('gw', null as never);
  // A callback hook, not an async one: no promise per request on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    request.gw = {
      startedAt: Date.now(),
      key: undefined,
      family: familyOfRoute(request),
      model: undefined,
      channel: undefined,
      usage: undefined,
      firstTokenAt: undefined,
      streamError: undefined,
      ending: undefined,
      reservation: undefined,
      budgetHold: undefined,
      usageJournaled: false,
      retries: 0,
      fallbacks: 0,
      attempts: undefined,
      trace: undefined,
      charge: undefined,
    };
    done();
  });
  registerJsonBody(app, deps.config.bodyLimitBytes, deps.requestLog.settings.bodies);
  app.setErrorHandler((error, request, reply) => sendError(request, reply, narrowModelListToKey(toGatewayError(error, request), request.gw?.key?.models)));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new GatewayError('GW_ROUTE_NOT_FOUND', `No endpoint ${request.method} ${request.url.split('?')[0]}`)),
  );

  await app.register(swagger, {
    transformObject: (document) => completeOpenApiDocument((document as { openapiObject: never }).openapiObject, { serverUrl: deps.publicUrl() }) as never,
    openapi: {
      info: { title: 'Model Gateway API', version: '1.0.0', description: 'One HTTP/JSON gateway in front of generative-model vendors.' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          googleKey: { type: 'apiKey', in: 'query', name: 'key' },
          consoleSession: { type: 'apiKey', in: 'cookie', name: 'gw_session' },
          googleKeyHeader: { type: 'apiKey', in: 'header', name: 'x-goog-api-key' },
        },
      },
    },
  });
  await app.register(docsUi);
  registerSecurityHeaders(app, deps.config.corsOrigins ?? []);
  // Before authentication: their end hooks must be in place when a refusal (401) ends the request.
  registerTracing(app);
  registerMetrics(app);
  registerAccessLog(app);
  registerAuth(app);
  registerUsageRecording(app);
  registerRateLimit(app);
  // After authentication and the key's header-only limits: a body is charged to its key (issue 34).
  const bodyBytesCap = deps.config.maxBodyBytesInFlight ?? DEFAULT_MAX_BODY_BYTES_IN_FLIGHT;
  app.decorate('bodyBudget', registerBodyBudget(app, bodyBytesCap, deps.config.bodyLimitBytes, deps.config.maxBodyBytesPerKey ?? Math.floor(bodyBytesCap / 8)));
  app.decorate('signInLimiter', new SignInLimiter(deps.redis));
  for (const plugin of FAMILY_PLUGINS) await app.register(plugin);
  // The console's web app at /console (issue 12), built from web/ into dist/web.
  await app.register(consoleStaticApp);
  return app;
}

export function toGatewayError(error: unknown, request: FastifyRequest): GatewayError {
  if (isGatewayError(error)) return error;
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('GW_REQ_TOO_LARGE', `Request body is larger than the limit of ${request.server.initialConfig.bodyLimit} bytes`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('GW_REQ_INVALID_JSON', 'Request body is empty; a JSON object is expected');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('GW_REQ_INVALID_JSON', 'Request body length does not match its Content-Length');
    default:
      break;
  }
  if (error instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new GatewayError('GW_REQ_INVALID_JSON', `Request body is not valid JSON: ${fastifyError.message}`);
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return new GatewayError('GW_REQ_INVALID_PARAM', fastifyError.message);
  if (isStoreUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable');
    return storeUnavailable(error);
  }
  request.log.error({ err: error }, 'unhandled error');
  return new GatewayError('GW_INTERNAL', 'The gateway failed to handle this request', { cause: error });
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: GatewayError): FastifyReply {
  if (request.gw) request.gw.error = error;
  // Every 429 says when to come back (issue 14): the upstream's or limiter's own figure, else
  // the gateway's backoff ceiling, so clients that honour Retry-After never hammer a rate limit.
  // A spent budget is final (issue 35): no Retry-After, and `x-should-retry: false`, which the
  // official OpenAI and Anthropic SDKs obey, so the refusal surfaces at once instead of after retries.
  if (error.code === 'GW_QUOTA_EXCEEDED') reply.header('x-should-retry', 'false');
  else {
    const retryAfter = error.retryAfterSeconds ?? (error.status === 429 ? request.server.gateway.retryPolicy.maxDelayMs / 1000 : undefined);
    if (retryAfter !== undefined) reply.header('retry-after', String(Math.max(0, Math.ceil(retryAfter))));
  }
  return reply
    .code(error.status)
    .header('x-request-id', request.id)
    .type('application/json; charset=utf-8')
    .send(errorsForRequest(request, request.is404 || error.code === 'GW_ROUTE_NOT_FOUND').render(error, request));
}
