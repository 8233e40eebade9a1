import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Headers a browser may read from a cross-origin answer (request id, rate-limit state). */
const EXPOSED = 'x-request-id, retry-after, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, x-ratelimit-limit-tokens, x-ratelimit-remaining-tokens, x-ratelimit-reset-tokens';
const ALLOWED_HEADERS = 'authorization, content-type, x-api-key, x-goog-api-key, x-goog-api-client, anthropic-version, anthropic-beta, openai-organization, openai-project, x-request-id, x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, x-stainless-timeout';

/**
 * Security headers on every answer (issue 13) and CORS, off unless an allow-list of origins is
 * configured (GATEWAY_CORS_ORIGINS): API keys belong on servers, and a browser app that calls
 * the gateway directly must be named by the operator. Set in onRequest so streams (which send
 * their own head from the reply's headers) carry them too.
 */
export function registerSecurityHeaders(app: FastifyInstance, corsOrigins: readonly string[]): void {
  const allowed = new Set(corsOrigins);
  const allowAny = allowed.has('*');
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    const origin = request.headers.origin;
    if (origin !== undefined && allowed.size > 0 && (allowAny || allowed.has(origin))) {
      reply.header('access-control-allow-origin', allowAny ? '*' : origin);
      reply.header('vary', 'Origin');
      reply.header('access-control-expose-headers', EXPOSED);
    }
    done();
  });
  if (allowed.size === 0) return;
  // Preflight: answered here for any path, before authentication (browsers send no key with it).
  app.options('*', { config: { isPublic: true }, schema: { hide: true } }, async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || !(allowAny || allowed.has(origin))) return reply.code(403).send();
    return reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST, PATCH, DELETE, OPTIONS')
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send();
  });
}
