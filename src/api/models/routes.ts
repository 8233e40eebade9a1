import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { CATALOG } from '../../catalog/models.js';

const CATALOG_CREATED = 1_735_689_600; // 2025-01-01, a fixed date so the list is stable

const ModelSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
});

/** GET /v1/models: the catalog in the OpenAI list shape, limited to what the key may use. */
export async function modelsRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/v1/models',
    {
      schema: {
        summary: 'List models',
        tags: ['models'],
        security: [{ bearer: [] }],
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelSchema) }) },
      },
    },
    async (request) => {
      const key = request.gw.key;
      const data = CATALOG.filter((m) => !key?.models || key.models.includes(m.id))
        .filter((m) => !key?.endpoints || m.families.some((f) => key.endpoints!.includes(f)))
        .map((m) => ({ id: m.id, object: 'model' as const, created: CATALOG_CREATED, owned_by: m.owner }));
      return { object: 'list' as const, data };
    },
  );
  app.get('/v1/models/:model', { schema: { hide: true } }, async (request, reply) => {
    const { model } = request.params as { model: string };
    const found = CATALOG.find((m) => m.id === model && (!request.gw.key?.models || request.gw.key.models.includes(m.id)));
    if (!found) return reply.callNotFound();
    return { id: found.id, object: 'model', created: CATALOG_CREATED, owned_by: found.owner };
  });
}
