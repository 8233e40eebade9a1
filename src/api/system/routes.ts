import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';

/** Health, readiness and the generated OpenAPI document; none of them needs a key. */
export async function systemRoutes(app: FastifyInstance): Promise<void> {
  const hidden = { hide: true } as const;
  app.get('/healthz', { config: { isPublic: true }, schema: hidden }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { isPublic: true }, schema: hidden }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(app.gateway.db);
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database' });
    }
    // Channels whose credentials no key of this instance opens serve nothing (issue 34): not ready until fixed.
    const sealed = app.gateway.channelStore.unopenable;
    if (sealed.length > 0) return reply.code(503).send({ status: 'unavailable', reason: 'channel credentials cannot be opened', channels: sealed.map((channel) => channel.name) });
    if (app.gateway.usage.isJournalFailing) return reply.code(503).send({ status: 'unavailable', reason: 'usage journal cannot be written' });
    return { status: 'ready' };
  });
  // The address people open first (issue 35): a browser goes to the console, anything else learns where things are.
  app.get('/', { config: { isPublic: true }, schema: hidden }, async (request, reply) => {
    if (request.headers.accept?.includes('text/html')) return reply.redirect('/console', 302);
    return { console: '/console', docs: '/docs', openapi: '/openapi.json', api: '/v1' };
  });
  app.get('/openapi.json', { config: { isPublic: true }, schema: hidden }, async () => app.swagger());
}
