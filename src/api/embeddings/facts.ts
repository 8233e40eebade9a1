import { NO_MEDIA, type RequestFacts } from '../../contracts/request-facts.js';
import type { EmbeddingsRequest } from './schemas.js';

/**
 * The neutral facts of a request that embeds or scores texts (embeddings, rerank): the texts are its
 * whole prompt and it answers no tokens, so nothing is reserved for output. Token-id inputs reserve
 * nothing up front (their count is exact at the end).
 */
export function textsFacts(texts: readonly string[]): RequestFacts {
  return {
    maxOutputTokens: 0,
    choices: 1,
    reasoningBudget: undefined,
    promptTokens: (count) => texts.reduce((sum, text) => sum + count(text), 0),
    templateTokens: () => 0,
    conversation: {
      cacheKey: undefined,
      userId: undefined,
      promptStart: (chars) => (texts[0] === undefined ? [] : [texts[0].slice(0, chars)]),
      hasHistory: () => false,
    },
    media: NO_MEDIA,
    temperature: undefined,
    topP: undefined,
    isStream: false,
  };
}

/** The facts of an embeddings request: its string inputs. */
export function embeddingsFacts(request: EmbeddingsRequest): RequestFacts {
  return textsFacts(typeof request.inputs[0] === 'string' ? (request.inputs as string[]) : []);
}
