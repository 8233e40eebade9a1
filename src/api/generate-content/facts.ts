import { type RequestFacts } from '../../contracts/request-facts.js';
import { conversationHintOf, countOr, numberOrUndefined, promptFactsOf, textOrUndefined, type PromptShape } from '../body-facts/prompt-facts.js';

const GEMINI_SHAPE: PromptShape = { turns: 'contents', system: ['systemInstruction'], rendered: ['tools', 'toolConfig', 'generationConfig'] };

type Fields = Readonly<Record<string, unknown>> | undefined;

/**
 * The neutral facts of a generateContent request: `generationConfig` holds the output maximum,
 * the candidates asked for, the thinking budget (0 turns thinking off) and the image size.
 */
export function generateContentFacts(request: object): RequestFacts {
  const body = request as Readonly<Record<string, unknown>>;
  const config = body.generationConfig as Fields;
  const anyConfig = (config ?? body.generation_config) as Fields;
  const imageConfig = (anyConfig?.imageConfig ?? anyConfig?.image_config) as Fields;
  return {
    maxOutputTokens: numberOrUndefined(config?.maxOutputTokens),
    choices: countOr(body.n, countOr(config?.candidateCount, 1)),
    reasoningBudget: thinkingBudgetOf(config),
    ...promptFactsOf(body, GEMINI_SHAPE),
    conversation: conversationHintOf(body, GEMINI_SHAPE, {}),
    media: {
      imageSize: textOrUndefined(body.size) ?? textOrUndefined(imageConfig?.imageSize) ?? textOrUndefined(imageConfig?.image_size),
      imageQuality: undefined,
      videoResolution: undefined,
    },
    temperature: numberOrUndefined(config?.temperature),
    topP: numberOrUndefined(config?.topP),
    isStream: false,
  };
}

/** `thinkingConfig.thinkingBudget` (either spelling): 0 turns thinking off, a positive figure caps it. */
function thinkingBudgetOf(config: Fields): number | 'off' | undefined {
  const thinking = (config?.thinkingConfig ?? config?.thinking_config) as Fields;
  const budget = thinking?.thinkingBudget ?? thinking?.thinking_budget;
  if (typeof budget !== 'number' || budget < 0) return undefined;
  return budget === 0 ? 'off' : budget;
}
