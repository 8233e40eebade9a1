import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';

/** Health, readiness and the generated OpenAPI document; none of them needs a key. */
export async function systemRoutes(app: FastifyInstance): Promise<void> {
  const hidden = { hide: true } as const;
  app.get('/healthz', { config: { isPublic: true }, schema: hidden }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { isPublic: true }, schema: hidden }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(app.gateway.db);
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database' });
    }
  });
  app.get('/openapi.json', { config: { isPublic: true }, schema: hidden }, async () => app.swagger());
}
