import type { RequestFacts } from '../contracts/request-facts.js';
import { approximateTokens } from '../tokens/approximate.js';

export { approximateTokens };

/** Reserved for the completion when the request names no maximum. */
export const DEFAULT_COMPLETION_ESTIMATE = 1024;

/**
 * Tokens reserved at admission: the prompt's approximate tokens plus the requested maximum
 * output, or DEFAULT_COMPLETION_ESTIMATE when none is given; both from the family's facts of the
 * request (api/<family>/facts.ts). The reservation is settled to the real usage when the request
 * ends, so an estimate is enough here; a real tokenizer would cost tens of microseconds and ~70 MB
 * of tables on every limited request.
 */
export function estimateTokens(facts: RequestFacts): number {
  return facts.promptTokens(approximateTokens) + (facts.maxOutputTokens ?? DEFAULT_COMPLETION_ESTIMATE);
}
