import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GENERATE_CONTENT_ENDPOINTS, IMAGE_MODELS } from '../../catalog/models.js';
import type { GeminiGenerateContentResponse, GeminiMethod, GenerateContentCall } from '../../protocols/gemini-generate/types.js';
import type { TranslatorPair } from '../../providers/types.js';
import { dispatchJson, dispatchStream } from '../../gateway/dispatch.js';
import { admit } from '../../plugins/rate-limit.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { GenerateContentQuerySchema, GenerateContentRequestSchema, validateGenerateContentQuery, validateGenerateContentRequest } from './schemas.js';
import { generateContentChunkText, renderGoogleStreamError } from './stream-error.js';

declare module '../../providers/types.js' {
  interface FamilyPairs {
    'generate-content': TranslatorPair<GenerateContentCall, GeminiGenerateContentResponse>;
  }
}

const DESCRIPTIONS: Record<GeminiMethod, string> = {
  generateContent: 'Native-style generation (spec §9). Answers one GenerateContentResponse.',
  streamGenerateContent:
    'Image generation in streaming mode (spec §8). Always answers SSE (`alt=sse` optional): thought chunks, one image chunk, then one usage chunk without candidates.',
};

/**
 * POST /v1beta/models/{model}:{method} for the catalog's (model, method) pairs (spec §8, §9).
 * Each pair is a static route (`::` is find-my-way's literal colon), so any other combination is
 * an ordinary 404 in the google envelope, answered before authentication like every unknown path.
 */
export async function generateContentRoutes(app: FastifyInstance): Promise<void> {
  for (const [model, method] of Object.entries(GENERATE_CONTENT_ENDPOINTS)) {
    const validateBody = validateGenerateContentRequest({ isImageModel: (IMAGE_MODELS as readonly string[]).includes(model) });
    app.post(
      `/v1beta/models/${model}::${method}`,
      {
        config: { family: 'generate-content' },
        schema: {
          summary: `${model}:${method}`,
          description: DESCRIPTIONS[method],
          tags: ['generate-content'],
          security: [{ googleKey: [] }],
          querystring: GenerateContentQuerySchema,
          body: GenerateContentRequestSchema,
        },
        validatorCompiler: ({ httpPart }) => toFastifyValidator(httpPart === 'body' ? validateBody : validateGenerateContentQuery),
      },
      async (request, reply) => handle(request, reply, model, method),
    );
  }
}

async function handle(request: FastifyRequest, reply: FastifyReply, model: string, method: GeminiMethod): Promise<unknown> {
  await admit(request, reply, model, { body: request.body });
  const body = { method, body: request.body } as GenerateContentCall;
  const options = { family: 'generate-content' as const, model, body, request, reply };
  if (method === 'streamGenerateContent') {
    await dispatchStream({ ...options, renderError: renderGoogleStreamError, deliveredText: generateContentChunkText });
    return reply;
  }
  return (await dispatchJson(options)).body;
}
