import { NO_MEDIA, type RequestFacts } from '../../contracts/request-facts.js';
import { conversationHintOf, countOr, numberOrUndefined, promptFactsOf, type PromptShape } from '../body-facts/prompt-facts.js';

const RESPONSES_SHAPE: PromptShape = { turns: 'input', system: ['instructions'], rendered: ['tools', 'text'] };

/** The neutral facts of a Responses request: `max_output_tokens`, `input` turns after `instructions`, `prompt_cache_key`. */
export function responsesFacts(request: object): RequestFacts {
  const body = request as Readonly<Record<string, unknown>>;
  return {
    maxOutputTokens: numberOrUndefined(body.max_output_tokens),
    choices: countOr(body.n, 1),
    reasoningBudget: undefined,
    ...promptFactsOf(body, RESPONSES_SHAPE),
    conversation: conversationHintOf(body, RESPONSES_SHAPE, { cacheKey: body.prompt_cache_key, userId: (body.metadata as { user_id?: unknown } | undefined)?.user_id, history: body.previous_response_id != null }),
    media: NO_MEDIA,
    temperature: numberOrUndefined(body.temperature),
    topP: numberOrUndefined(body.top_p),
    isStream: body.stream === true,
  };
}
