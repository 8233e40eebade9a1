import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestParameterAttributes, usageAttributes } from '../telemetry/gen-ai-attributes.js';
import type { SpanEnd, SpanStart } from '../telemetry/tracing.js';
import { onRequestEnd, type ResponseEnd } from './request-end.js';

/**
 * A server span per request (issue 15) on every route that needs a key or a session, and on
 * unknown paths; public routes (probes, /metrics, docs, media links, the console's files) would
 * only be noise. Nothing is registered when tracing is off. The span ends with the response and
 * the handler (request-end.ts), so a stream's tokens are known by then.
 */
export function registerTracing(app: FastifyInstance): void {
  const tracing = app.gateway.tracing;
  if (!tracing) return;
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.isPublic) return done();
    request.gw.trace = tracing.startRequest(request.headers, serverSpanStart(request));
    onRequestEnd(request, reply, endServerSpan);
    done();
  });
}

function serverSpanStart(request: FastifyRequest): SpanStart {
  const route = request.routeOptions.url;
  return {
    // HTTP's convention until the model is known (then the GenAI name, at the end).
    name: route ? `${request.method} ${route}` : request.method,
    attributes: {
      'http.request.method': request.method,
      'http.route': route,
      // The path only: a query may carry a key (`?key=`).
      'url.path': request.url.split('?', 1)[0],
      'gateway.request.id': request.id,
    },
  };
}

function endServerSpan(end: ResponseEnd, request: FastifyRequest, reply: FastifyReply): void {
  const gw = request.gw;
  const status = reply.raw.statusCode;
  const operation = request.routeOptions.config.operation;
  // The code of the error the client read, whether answered whole or as a stream's last event.
  const errorType = gw.error?.code ?? gw.streamError?.code ?? (status >= 400 ? String(status) : undefined);
  const span: SpanEnd = {
    name: operation && gw.model ? `${operation} ${gw.model}` : undefined,
    attributes: {
      'http.response.status_code': status,
      'error.type': errorType,
      'gen_ai.operation.name': operation,
      'gen_ai.request.model': gw.model,
      // Answers carry the public model id the client asked for (TranslateContext.model).
      'gen_ai.response.model': status < 400 ? gw.model : undefined,
      ...requestParameterAttributes(gw.facts),
      ...usageAttributes(gw.usage),
      'gateway.key.id': gw.key?.id,
      'gateway.family': gw.family,
      'gateway.channel': gw.channel,
      'gateway.retries': gw.retries || undefined,
      'gateway.fallbacks': gw.fallbacks || undefined,
      'gateway.client_aborted': end.finished ? undefined : true,
    },
    // HTTP's server convention: 4xx is the client's doing, not a failed span.
    isError: status >= 500 || gw.streamError !== undefined,
  };
  gw.trace!.end(span);
}
