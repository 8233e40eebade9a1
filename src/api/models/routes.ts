import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { CatalogEntry } from '../../catalog/catalog.js';
import { TEXT_FAMILIES } from '../../contracts/endpoint-family.js';
import { isAnthropicClient } from '../messages/errors.js';
import { isGoogleStyleRequest } from '../generate-content/google-style.js';
import { modelsErrors } from './errors.js';
import { googleModelOr404, googleModelsFor } from '../generate-content/google-models.js';

const CATALOG_CREATED = 1_735_689_600; // 2025-01-01, a fixed date so the list is stable

const ModelSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
});

/** Models an Anthropic client can talk to through Anthropic-native /v1/messages. */
const isTextModel = (model: CatalogEntry): boolean => model.families.some((family) => TEXT_FAMILIES.includes(family));

/** Anthropic's ModelInfo (anthropic.md): `type`, `id`, `display_name`, `created_at` (RFC 3339). */
const anthropicModel = (model: CatalogEntry) => ({ type: 'model', id: model.id, display_name: model.id, created_at: new Date(CATALOG_CREATED * 1000).toISOString() });

/** Anthropic's model page: all of it in one page. */
function anthropicModelList(models: readonly CatalogEntry[]) {
  const data = models.map(anthropicModel);
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/**
 * GET /v1/models: every model served (the spec's and the operator's, issue 21) in the OpenAI list
 * shape, limited to what the key may use; an Anthropic client (`anthropic-version`) gets
 * Anthropic's model list of the text models instead.
 */
export async function modelsRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/v1/models',
    {
      config: { errors: modelsErrors },
      schema: {
        summary: 'List models',
        description:
          "The OpenAI list shape. A Google-style call (`x-goog-api-key` header or `?key=`, no bearer header) gets the Gemini-native `{models: [...]}` of `GET /v1beta/models` instead; an Anthropic client (`anthropic-version` header) gets Anthropic's `{data: [{type, id, display_name, created_at}], has_more, first_id, last_id}` of the text models.",
        tags: ['models'],
        security: [{ bearer: [] }],
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelSchema) }) },
      },
    },
    async (request, reply) => {
      // Not through the route's serializer: its schema is the OpenAI list.
      if (isGoogleStyleRequest(request.url, request.headers)) return reply.type('application/json; charset=utf-8').send(JSON.stringify({ models: googleModelsFor(app.gateway.catalog, request.gw.key) }));
      const key = request.gw.key;
      const models = app.gateway.catalog.servedModels().filter((m) => !key?.models || key.models.includes(m.id)).filter((m) => !key?.endpoints || m.families.some((f) => key.endpoints!.includes(f)));
      if (isAnthropicClient(request.headers)) return reply.type('application/json; charset=utf-8').send(JSON.stringify(anthropicModelList(models.filter(isTextModel))));
      const data = models.map((m) => ({ id: m.id, object: 'model' as const, created: CATALOG_CREATED, owned_by: m.owner }));
      return { object: 'list' as const, data };
    },
  );
  app.get('/v1/models/:model', { config: { errors: modelsErrors }, schema: { hide: true } }, async (request, reply) => {
    const { model } = request.params as { model: string };
    if (isGoogleStyleRequest(request.url, request.headers)) return googleModelOr404(request, reply, model);
    const key = request.gw.key;
    const found = app.gateway.catalog.isServed(model) ? app.gateway.catalog.find(model) : undefined;
    if (!found || (key?.models && !key.models.includes(found.id)) || (key?.endpoints && !found.families.some((f) => key.endpoints!.includes(f)))) return reply.callNotFound();
    if (isAnthropicClient(request.headers)) return anthropicModel(found);
    return { id: found.id, object: 'model', created: CATALOG_CREATED, owned_by: found.owner };
  });
}
