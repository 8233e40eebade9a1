import type { FastifyInstance } from 'fastify';
import { messagesErrors } from './errors.js';
import type { OpenAIChatCompletion, OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import type { TranslatorPair } from '../../contracts/translator.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { chatShapedHandler } from '../chat-completions/chat-shaped-handler.js';
import { MessagesRequest, validateMessagesRequest } from './schemas.js';
import { anthropicMessagesRoutes } from './anthropic-routes.js';

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    /** /v1/messages is chat-shaped on both sides (spec §2), so it uses the chat hub types. */
    messages: TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion>;
  }
}

/**
 * POST /v1/messages (spec §2): chat-shaped request, chat.completion response. Requests that carry
 * `anthropic-version` are Anthropic's own Messages API instead (anthropic-routes.ts).
 */
export async function messagesRoutes(app: FastifyInstance): Promise<void> {
  await anthropicMessagesRoutes(app);
  app.post(
    '/v1/messages',
    {
      config: { family: 'messages', errors: messagesErrors, operation: 'chat' },
      schema: {
        summary: 'Create a message (alpha models)',
        description:
          "Chat-shaped request for the alpha models; the response is a `chat.completion`. `stream: true` streams chat.completion.chunk events ending in `data: [DONE]`; `stream_options.include_usage` adds a final usage chunk. A request with the `anthropic-version` header (every Anthropic client sends it) is Anthropic's Messages API instead: content blocks, `system` blocks, tools, thinking, a `type: message` answer, Anthropic's named stream events and error envelope, for any model a chat-capable channel serves.",
        tags: ['messages'],
        security: [{ bearer: [] }],
        body: MessagesRequest,
      },
      validatorCompiler: () => toFastifyValidator((body) => validateMessagesRequest(body, app.gateway.catalog)),
    },
    chatShapedHandler('messages'),
  );
}
