import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generateContentErrors } from './errors.js';
import { generateContentFacts } from './facts.js';
import { GENERATE_CONTENT_ENDPOINTS, IMAGE_MODELS } from '../../catalog/models.js';
import type { GeminiGenerateContentRequest, GeminiGenerateContentResponse, GeminiMethod, GenerateContentCall } from '../../protocols/gemini-generate/types.js';
import type { TranslatorPair } from '../../contracts/translator.js';
import { dispatchJson, dispatchStream } from '../../gateway/dispatch.js';
import { answerJsonCached } from '../../gateway/response-cache-dispatch.js';
import { generateContentCacheCodec } from './cache-codec.js';
import { admit } from '../../plugins/rate-limit.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { GenerateContentQuerySchema, GenerateContentRequestSchema, validateGenerateContentQuery, validateGenerateContentRequest } from './schemas.js';
import { generateContentChunkText, renderGoogleStreamError } from './stream-error.js';
import { CountTokensRequestSchema, countTokensOf } from './count-tokens.js';
import { googleModelsRoutes } from './google-models.js';
import { geminiEmbed, geminiEmbedCall } from '../embeddings/gemini-native.js';
import { compileValidator } from '../../validation/compile.js';
import type { Catalog } from '../../catalog/catalog.js';

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    'generate-content': TranslatorPair<GenerateContentCall, GeminiGenerateContentResponse>;
  }
}

/**
 * The Gemini-native surface under both API versions: `/v1beta` is the spec's (§8, §9) and what
 * older SDKs call; @google/genai 2+ calls `/v1` by default. Both answer the same envelopes.
 */
const VERSION_PREFIXES = ['/v1beta', '/v1'] as const;

/**
 * What the Google SDKs call on an ordinary day, per model: the spec's method for each model
 * (GENERATE_CONTENT_ENDPOINTS) plus the other generate method and countTokens.
 */
const METHODS = ['generateContent', 'streamGenerateContent'] as const satisfies readonly GeminiMethod[];
export const GOOGLE_METHODS_BY_MODEL: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.keys(GENERATE_CONTENT_ENDPOINTS).map((model) => [model, [...METHODS, 'countTokens']]),
);

const DESCRIPTIONS: Record<GeminiMethod, string> = {
  generateContent: 'Native-style generation (spec §9). Answers one GenerateContentResponse.',
  streamGenerateContent:
    'Streaming generation. The image model (spec §8) always answers SSE: thought chunks, one image chunk, then one usage chunk without candidates. ' +
    'Text models answer SSE with `alt=sse` (what the SDKs send) and a JSON array of responses without it.',
};

const GENERATE_CONTENT_ROUTE = { family: 'generate-content', errors: generateContentErrors, operation: 'generate_content' } as const;

const isImageModel = (model: string): boolean => (IMAGE_MODELS as readonly string[]).includes(model);

/**
 * POST /{v1beta,v1}/models/{model}:{method} for the catalog's generate-content models. Each pair
 * is a static route (`::` is find-my-way's literal colon), so any other combination is an
 * ordinary 404 in the google envelope, answered before authentication like every unknown path.
 */
export async function generateContentRoutes(app: FastifyInstance): Promise<void> {
  for (const prefix of VERSION_PREFIXES) {
    for (const model of Object.keys(GENERATE_CONTENT_ENDPOINTS)) {
      const validateBody = validateGenerateContentRequest({ isImageModel: isImageModel(model) });
      for (const method of METHODS) {
        app.post(
          `${prefix}/models/${model}::${method}`,
          {
            config: GENERATE_CONTENT_ROUTE,
            schema: {
              summary: `${model}:${method}`,
              description: DESCRIPTIONS[method],
              tags: ['generate-content'],
              security: [{ googleKey: [] }, { googleKeyHeader: [] }],
              querystring: GenerateContentQuerySchema,
              body: GenerateContentRequestSchema,
              ...(prefix === '/v1' ? { hide: true } : {}),
            },
            validatorCompiler: ({ httpPart }) => toFastifyValidator(httpPart === 'body' ? validateBody : validateGenerateContentQuery),
          },
          async (request, reply) => handle(request, reply, model, method),
        );
      }
      app.post(
        `${prefix}/models/${model}::countTokens`,
        {
          config: GENERATE_CONTENT_ROUTE,
          schema: {
            summary: `${model}:countTokens`,
            description: "Counts the request's tokens with the gateway's tokenizer (o200k); no upstream call.",
            tags: ['generate-content'],
            security: [{ googleKey: [] }, { googleKeyHeader: [] }],
            querystring: GenerateContentQuerySchema,
            body: CountTokensRequestSchema,
            ...(prefix === '/v1' ? { hide: true } : {}),
          },
        },
        async (request, reply) => {
          await admit(request, reply, model);
          return countTokensOf(request.body as never);
        },
      );
    }
  }
  for (const prefix of VERSION_PREFIXES) operatorModelRoute(app, prefix);
  await app.register(googleModelsRoutes);
}

const OPERATOR_METHODS = new Set(['generateContent', 'streamGenerateContent', 'countTokens']);
const validateTextBody = validateGenerateContentRequest({ isImageModel: false });
const validateImageBody = validateGenerateContentRequest({ isImageModel: true });
const validateCountTokens = compileValidator(CountTokensRequestSchema);

/** `{model}:{method}` of a path segment when the model is one the operator serves here (issue 21). */
function operatorCall(catalog: Catalog, segment: string): { model: string; method: string } | undefined {
  const colon = segment.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const model = segment.slice(0, colon);
  const method = segment.slice(colon + 1);
  if (!OPERATOR_METHODS.has(method) || catalog.isSpecModel(model) || !catalog.servesModel('generate-content', model)) return undefined;
  return { model, method };
}

/**
 * The operator's generate-content models (issue 21), on one parametric route beside the spec's
 * static ones (which win). A path naming no such model is the ordinary 404, answered before
 * authentication like every unknown path. The body is validated here, by the model's kind.
 */
function operatorModelRoute(app: FastifyInstance, prefix: string): void {
  const callOf = (request: FastifyRequest) => operatorCall(app.gateway.catalog, (request.params as { call: string }).call);
  // The embedding models' embedContent and batchEmbedContents share the path shape (issue 29), on the embeddings family.
  const embedCallOf = (request: FastifyRequest) => geminiEmbedCall(app.gateway.catalog, (request.params as { call: string }).call);
  app.post(
    `${prefix}/models/:call`,
    {
      config: {
        ...GENERATE_CONTENT_ROUTE,
        exists: (request) => callOf(request) !== undefined || embedCallOf(request) !== undefined,
        familyOf: (request) => (embedCallOf(request) ? 'embeddings' : undefined),
      },
      schema: { hide: true, querystring: GenerateContentQuerySchema },
      validatorCompiler: ({ httpPart }) => (httpPart === 'body' ? (data: unknown) => ({ value: data }) : toFastifyValidator(validateGenerateContentQuery)),
    },
    async (request, reply) => {
      const embedCall = embedCallOf(request);
      if (embedCall) return geminiEmbed(request, reply, embedCall.model, embedCall.method);
      const { model, method } = callOf(request)!;
      if (method === 'countTokens') {
        validateCountTokens(request.body);
        await admit(request, reply, model);
        return countTokensOf(request.body as never);
      }
      const isImage = app.gateway.catalog.find(model)?.kind === 'image';
      request.body = (isImage ? validateImageBody : validateTextBody)(request.body);
      return handle(request, reply, model, method as GeminiMethod, isImage);
    },
  );
}

async function handle(request: FastifyRequest, reply: FastifyReply, model: string, method: GeminiMethod, imageModel = isImageModel(model)): Promise<unknown> {
  await admit(request, reply, model, { facts: generateContentFacts(request.body as object) });
  // Thoughts are part of the answer only when asked for (what a channel translated from chat needs to know).
  const includeThoughts = (request.body as GeminiGenerateContentRequest).generationConfig?.thinkingConfig?.includeThoughts === true;
  const options = { family: 'generate-content' as const, model, request, reply, client: { hidesReasoning: !includeThoughts } };
  if (method === 'streamGenerateContent' && (imageModel || (request.query as { alt?: string }).alt === 'sse')) {
    const body = { method, body: request.body } as GenerateContentCall;
    await dispatchStream({ ...options, body, renderError: renderGoogleStreamError, deliveredText: generateContentChunkText, cache: { codec: generateContentCacheCodec } });
    return reply;
  }
  const body = { method: 'generateContent', body: request.body } as GenerateContentCall;
  const caching = { family: 'generate-content' as const, model, request, reply, codec: generateContentCacheCodec };
  const response = await answerJsonCached(caching, async () => (await dispatchJson({ ...options, body })).body);
  // Without alt=sse a Gemini stream is one JSON array of responses (gemini.md); a finished
  // answer is that array with a single element (the cache answers JSON text).
  if (method !== 'streamGenerateContent') return response;
  return typeof response === 'string' ? `[${response}]` : [response];
}
