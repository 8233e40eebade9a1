import type { OpenAIResponse, OpenAIResponsesRequest } from '../../protocols/openai-responses/types.js';
import { responsesToOpenAICompatible, toChatRequest, type ResponsesViaChatQuirks } from '../openai-compatible/from-responses.js';
import { createResponsesFromChatStreamTranslator } from '../openai-compatible/from-responses-stream.js';
import { OPENAI_QUIRKS } from '../openai-compatible/quirks.js';
import type { ViaChatHub } from './compose.js';

/**
 * What the chat hub's own chat requests look like: OpenAI's (the vendor's chat pair adapts them to
 * its upstream, as it does for chat clients).
 */
const HUB_QUIRKS: ResponsesViaChatQuirks = { developerRoleAs: 'developer', reasoningEffort: 'reasoning_effort', passThroughFields: [] };

/** The chat-completion side of the Responses-over-chat translation, reused as is. */
const fromChat = responsesToOpenAICompatible(OPENAI_QUIRKS, HUB_QUIRKS);

/**
 * /v1/responses through the chat hub, for channels whose vendor has no Responses API of its own
 * and no Responses translator (Anthropic, Gemini): the Responses-over-chat translation that
 * serves chat-only OpenAI-compatible vendors, applied to the vendor's chat pair.
 */
export const responsesViaChat: ViaChatHub<OpenAIResponsesRequest, OpenAIResponse> = {
  toChatRequest: (req, ctx) => toChatRequest(req, ctx, OPENAI_QUIRKS, HUB_QUIRKS),
  fromChatCompletion: (completion, ctx) => fromChat.fromUpstream(completion, ctx).body,
  createChunkTranslator(ctx) {
    const events = createResponsesFromChatStreamTranslator(ctx, OPENAI_QUIRKS);
    return {
      onChunk: (chunk) => events.onEvent({ data: JSON.stringify(chunk) }),
      onEnd: () => [...events.onEvent({ data: '[DONE]' }), ...events.onEnd()],
      onError: (error) => events.onError(error),
    };
  },
};
