import type { RequestFacts } from '../../contracts/request-facts.js';
import { conversationHintOf, countOr, promptFactsOf, textOrUndefined, type PromptShape } from '../body-facts/prompt-facts.js';

/** An image prompt is one string: no turns, no system text, nothing rendered around it. */
const IMAGES_SHAPE: PromptShape = { system: [], rendered: [] };

/** The neutral facts of an images request: `n` images of the `size` and `quality` asked for. */
export function imagesFacts(request: object): RequestFacts {
  const body = request as Readonly<Record<string, unknown>>;
  return {
    maxOutputTokens: undefined,
    choices: countOr(body.n, 1),
    reasoningBudget: undefined,
    ...promptFactsOf(body, IMAGES_SHAPE),
    conversation: conversationHintOf(body, IMAGES_SHAPE, {}),
    media: { imageSize: textOrUndefined(body.size), imageQuality: textOrUndefined(body.quality), videoResolution: undefined },
    temperature: undefined,
    topP: undefined,
    isStream: body.stream === true,
  };
}
