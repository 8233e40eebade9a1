import type { MediaFacts, RequestFacts } from '../../contracts/request-facts.js';
import { conversationHintOf, promptFactsOf, textOrUndefined, type PromptShape } from '../body-facts/prompt-facts.js';

const KLING_SHAPE: PromptShape = { system: [], rendered: [] };

type Fields = Readonly<Record<string, unknown>>;

/** Kling prices by `mode` (std or pro), which the price sheet lists as the video's resolution. */
function klingMedia(body: Fields): MediaFacts {
  return { imageSize: undefined, imageQuality: undefined, videoResolution: textOrUndefined(body.mode) };
}

/** The media of a stored /videoalt task (`{capability, body}`), which its charge reads when it completes. */
export function videoaltTaskMedia(stored: unknown): MediaFacts {
  const inner = (stored as { body?: unknown } | null | undefined)?.body;
  return klingMedia((inner && typeof inner === 'object' ? inner : {}) as Fields);
}

/** The neutral facts of a Kling-native task request (the capability's body). */
export function videoaltFacts(request: object): RequestFacts {
  const body = request as Fields;
  return {
    maxOutputTokens: undefined,
    choices: 1,
    reasoningBudget: undefined,
    ...promptFactsOf(body, KLING_SHAPE),
    conversation: conversationHintOf(body, KLING_SHAPE, {}),
    media: klingMedia(body),
    temperature: undefined,
    topP: undefined,
    isStream: false,
  };
}
