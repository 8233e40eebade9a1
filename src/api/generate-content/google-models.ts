import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generateContentErrors } from './errors.js';
import { Type } from 'typebox';
import type { Catalog } from '../../catalog/catalog.js';
import { GENERATE_CONTENT_ENDPOINTS } from '../../catalog/models.js';
import type { ApiKey } from '../../keys/key-store.js';

/** Google's Model resource, as `models.list` and `models.get` return it (js-genai `Model`). */
export const GoogleModelSchema = Type.Object({
  name: Type.String({ description: '`models/{id}`' }),
  baseModelId: Type.String(),
  version: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  inputTokenLimit: Type.Integer(),
  outputTokenLimit: Type.Integer(),
  supportedGenerationMethods: Type.Array(Type.String()),
});
export const GoogleModelListSchema = Type.Object({ models: Type.Array(GoogleModelSchema) });

const METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];
/** Limits of the models behind the neutral ids (Gemini API model pages). */
const LIMITS: Record<string, { input: number; output: number }> = {
  'gamma-2.5-flash-lite': { input: 1_048_576, output: 65_536 },
  'gamma-3.1-flash-image': { input: 65_536, output: 32_768 },
};

const googleModel = (id: string, isImage: boolean) => ({
  name: `models/${id}`,
  baseModelId: id,
  version: '001',
  displayName: id,
  description: isImage ? 'Image generation (text and image output).' : 'Text generation.',
  inputTokenLimit: LIMITS[id]?.input ?? 32_768,
  outputTokenLimit: LIMITS[id]?.output ?? 8_192,
  supportedGenerationMethods: METHODS,
});

/** The generate-content models this key may use, in Google's shape: the spec's, then the operator's (issue 21). */
export function googleModelsFor(catalog: Catalog, key: ApiKey | undefined): Array<ReturnType<typeof googleModel>> {
  if (key?.endpoints && !key.endpoints.includes('generate-content')) return [];
  return catalog
    .modelsFor('generate-content')
    .filter((id) => (id in GENERATE_CONTENT_ENDPOINTS || !catalog.isSpecModel(id)) && (!key?.models || key.models.includes(id)))
    .map((id) => googleModel(id, catalog.find(id)?.kind === 'image'));
}

/** `models.get`: the model when the key may use it, otherwise the ordinary 404. */
export function googleModelOr404(request: FastifyRequest, reply: FastifyReply, id: string): unknown {
  const name = id.startsWith('models/') ? id.slice('models/'.length) : id;
  return googleModelsFor(request.server.gateway.catalog, request.gw.key).find((m) => m.baseModelId === name) ?? reply.callNotFound();
}

/** GET /v1beta/models and /v1beta/models/{model}; `/v1/models` answers the same to Google-style calls (api/models). */
export async function googleModelsRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/v1beta/models',
    {
      config: { errors: generateContentErrors },
      schema: {
        summary: 'List models (Gemini-native)',
        description: 'The generate-content models the key may use. Also answered on `GET /v1/models` to Google-style calls (`x-goog-api-key` or `?key=`, no bearer header).',
        tags: ['generate-content'],
        security: [{ googleKey: [] }, { googleKeyHeader: [] }],
        response: { 200: GoogleModelListSchema },
      },
    },
    async (request) => ({ models: googleModelsFor(app.gateway.catalog, request.gw.key) }),
  );
  app.get(
    '/v1beta/models/:model',
    {
      config: { errors: generateContentErrors },
      schema: {
        summary: 'Get a model (Gemini-native)',
        tags: ['generate-content'],
        security: [{ googleKey: [] }, { googleKeyHeader: [] }],
        params: Type.Object({ model: Type.String() }),
        response: { 200: GoogleModelSchema },
      },
    },
    async (request, reply) => googleModelOr404(request, reply, (request.params as { model: string }).model),
  );
}
