import type { FastifyInstance } from 'fastify';
import { chatErrors } from './errors.js';
import type { OpenAIChatCompletion, OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import type { TranslatorPair } from '../../contracts/translator.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { chatShapedHandler } from './chat-shaped-handler.js';
import { ChatCompletionsRequestDoc, validateChatCompletionsRequest } from './schemas.js';

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    'chat-completions': TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion>;
  }
}

/** POST /v1/chat/completions (spec §1). */
export async function chatCompletionsRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/v1/chat/completions',
    {
      config: { family: 'chat-completions', errors: chatErrors, operation: 'chat' },
      schema: {
        summary: 'Create a chat completion',
        description: 'Families A (delta-4.1), B (beta multimodal) and C (beta-seed-1-6-lite-251015). `stream: true` streams chat.completion.chunk events ending in `data: [DONE]`.',
        tags: ['chat'],
        security: [{ bearer: [] }],
        body: ChatCompletionsRequestDoc,
      },
      validatorCompiler: () => toFastifyValidator((body) => validateChatCompletionsRequest(body, app.gateway.catalog)),
    },
    chatShapedHandler('chat-completions'),
  );
}
