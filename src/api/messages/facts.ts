import { NO_MEDIA, type RequestFacts } from '../../contracts/request-facts.js';
import type { AnthropicMessagesRequest } from '../../protocols/anthropic-messages/types.js';
import { conversationHintOf, isThinkingOff, numberOrUndefined, promptFactsOf, type PromptShape } from '../body-facts/prompt-facts.js';

const ANTHROPIC_SHAPE: PromptShape = { turns: 'messages', system: ['system'], rendered: ['tools'] };

/**
 * The neutral facts of an Anthropic-native Messages request: `max_tokens`, thinking turned off by
 * `thinking: {type: "disabled"}`, the conversation named by `metadata.user_id` (Claude Code's
 * carries its session).
 */
export function anthropicMessagesFacts(request: AnthropicMessagesRequest): RequestFacts {
  const body = request as unknown as Readonly<Record<string, unknown>>;
  return {
    maxOutputTokens: numberOrUndefined(body.max_tokens),
    choices: 1,
    reasoningBudget: isThinkingOff(body) ? 'off' : undefined,
    ...promptFactsOf(body, ANTHROPIC_SHAPE),
    conversation: conversationHintOf(body, ANTHROPIC_SHAPE, { userId: (body.metadata as { user_id?: unknown } | undefined)?.user_id }),
    media: NO_MEDIA,
    temperature: numberOrUndefined(body.temperature),
    topP: numberOrUndefined(body.top_p),
    isStream: body.stream === true,
  };
}
