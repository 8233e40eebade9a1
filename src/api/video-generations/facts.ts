import type { MediaFacts, RequestFacts } from '../../contracts/request-facts.js';
import { conversationHintOf, promptFactsOf, textOrUndefined, type PromptShape } from '../body-facts/prompt-facts.js';

const VIDEO_SHAPE: PromptShape = { system: [], rendered: [] };

type Fields = Readonly<Record<string, unknown>>;

/** The resolution a video request asks for: `resolution`, also accepted inside `parameters`. */
export function videoGenerationsMedia(request: unknown): MediaFacts {
  const body = (request && typeof request === 'object' ? request : {}) as Fields;
  const parameters = body.parameters as Fields | undefined;
  return { imageSize: undefined, imageQuality: undefined, videoResolution: textOrUndefined(body.resolution) ?? textOrUndefined(parameters?.resolution) };
}

/** The neutral facts of a video task request: its prompt and resolution (its seconds come from the route). */
export function videoGenerationsFacts(request: object): RequestFacts {
  const body = request as Fields;
  return {
    maxOutputTokens: undefined,
    choices: 1,
    reasoningBudget: undefined,
    ...promptFactsOf(body, VIDEO_SHAPE),
    conversation: conversationHintOf(body, VIDEO_SHAPE, {}),
    media: videoGenerationsMedia(body),
    temperature: undefined,
    topP: undefined,
    isStream: false,
  };
}
