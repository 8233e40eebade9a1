import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from './redact-url.js';
import { onRequestEnd, type ResponseEnd } from './request-end.js';

/**
 * One structured line per request at `info` (issue 15), written when the response is over, with
 * what an operator looks for first: who (key id, never the secret), what (model, channel), how it
 * went (status, latency, time to first byte, tokens, retries and fallbacks). Fastify's own two
 * lines per request are off. Nothing is registered when the level is above `info`.
 */
export function registerAccessLog(app: FastifyInstance): void {
  if (!(app.log as FastifyBaseLogger & { isLevelEnabled(level: string): boolean }).isLevelEnabled('info')) return;
  app.addHook('onRequest', (request, reply, done) => {
    onRequestEnd(request, reply, logAccess);
    done();
  });
}

function logAccess(end: ResponseEnd, request: FastifyRequest, reply: FastifyReply): void {
  const gw = request.gw;
  const usage = gw.usage;
  request.log.info(
    {
      method: request.method,
      url: redactUrl(request.url),
      status: reply.raw.statusCode,
      ms: Date.now() - gw.startedAt,
      ttfb_ms: gw.firstTokenAt === undefined ? undefined : gw.firstTokenAt - gw.startedAt,
      key: gw.key?.id,
      family: gw.family,
      model: gw.model,
      channel: gw.channel,
      prompt_tokens: usage?.promptTokens,
      completion_tokens: usage?.completionTokens,
      retries: gw.retries || undefined,
      fallbacks: gw.fallbacks || undefined,
      aborted: end.finished ? undefined : true,
    },
    'request',
  );
}
