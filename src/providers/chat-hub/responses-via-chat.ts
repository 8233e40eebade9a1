import type { OpenAIResponse, OpenAIResponsesRequest } from '../../protocols/openai-responses/types.js';
import type { OpenAIResponsesWebSearchTool } from '../../protocols/openai-responses/input-items.js';
import type { ChatWebSearch } from '../openai-compatible/responses-tools-via-chat.js';
import { responsesToOpenAICompatible, toChatRequest, type ResponsesViaChatQuirks } from '../openai-compatible/from-responses.js';
import { createResponsesFromChatStreamTranslator } from '../openai-compatible/from-responses-stream.js';
import { OPENAI_QUIRKS } from '../openai-compatible/quirks.js';
import type { ViaChatHub } from './compose.js';

/**
 * What the chat hub's own chat requests look like: OpenAI's (the vendor's chat pair adapts them to
 * its upstream, as it does for chat clients).
 */
const HUB_QUIRKS: ResponsesViaChatQuirks = {
  developerRoleAs: 'developer',
  reasoningEffort: 'reasoning_effort',
  // Only Anthropic and Gemini channels take this path: neither reads reasoning back from text.
  takesReasoningContent: false,
  webSearch: toWebSearchOptions,
  passThroughFields: [],
};

/**
 * A Responses `web_search` tool as OpenAI chat's `web_search_options`, which the vendor's chat
 * translator turns into its own hosted search (Anthropic's `web_search` server tool, Gemini's
 * `googleSearch`). Codex sends one on every request, so a channel that can search must not
 * refuse it; domain filters and the user's location go along where the vendor takes them.
 */
function toWebSearchOptions(tool: OpenAIResponsesWebSearchTool): ChatWebSearch {
  const options: Record<string, unknown> = {};
  if (tool.search_context_size) options.search_context_size = tool.search_context_size;
  if (tool.user_location) options.user_location = tool.user_location;
  const domains = tool.filters?.allowed_domains;
  if (domains && domains.length > 0) options.allowed_domains = [...domains];
  return { fields: { web_search_options: options } };
}

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
