import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import { dispatchJsonReply, dispatchStream } from '../../gateway/dispatch.js';
import { admit } from '../../plugins/rate-limit.js';
import { chatCompletionsFacts } from './facts.js';
import { chatChunkText, renderChatStreamError } from './stream-error.js';
import { answerJsonCached } from '../../gateway/response-cache-dispatch.js';
import { chatCacheCodec } from './cache-codec.js';

/**
 * The handler of both chat-shaped families (/v1/chat/completions and /v1/messages): the body is
 * a validated chat request; it is dispatched as JSON or as a chat.completion.chunk stream.
 */
const CACHE = { codec: chatCacheCodec };

export function chatShapedHandler(family: 'chat-completions' | 'messages') {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const body = request.body as OpenAIChatRequest;
    const admitting = admit(request, reply, body.model, { facts: chatCompletionsFacts(body) });
    if (admitting) await admitting;
    const options = { family, model: body.model, body, request, reply, includeUsage: body.stream_options?.include_usage === true };
    if (body.stream) {
      await dispatchStream({ ...options, renderError: renderChatStreamError, deliveredText: chatChunkText, cache: CACHE });
      return reply;
    }
    return answerJsonCached({ family, model: body.model, request, reply, codec: chatCacheCodec }, () => dispatchJsonReply(options));
  };
}
