import { NO_MEDIA, type RequestFacts } from '../../contracts/request-facts.js';
import type { OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import { conversationHintOf, countOr, isThinkingOff, numberOrUndefined, promptFactsOf, type PromptShape } from '../body-facts/prompt-facts.js';

const CHAT_SHAPE: PromptShape = { turns: 'messages', system: [], rendered: ['tools', 'functions', 'response_format'] };

/**
 * The neutral facts of a chat request (/v1/chat/completions and chat-shaped /v1/messages): the
 * output maximum is `max_tokens` or `max_completion_tokens`, `n` choices, `prompt_cache_key` or
 * `metadata.user_id` names the conversation.
 */
export function chatCompletionsFacts(request: OpenAIChatRequest): RequestFacts {
  const body = request as unknown as Readonly<Record<string, unknown>>;
  return {
    maxOutputTokens: numberOrUndefined(body.max_tokens) ?? numberOrUndefined(body.max_completion_tokens),
    choices: countOr(body.n, 1),
    reasoningBudget: isThinkingOff(body) ? 'off' : undefined,
    ...promptFactsOf(body, CHAT_SHAPE),
    conversation: conversationHintOf(body, CHAT_SHAPE, { cacheKey: body.prompt_cache_key, userId: (body.metadata as { user_id?: unknown } | undefined)?.user_id }),
    media: NO_MEDIA,
    temperature: numberOrUndefined(body.temperature),
    topP: numberOrUndefined(body.top_p),
    isStream: body.stream === true,
  };
}
