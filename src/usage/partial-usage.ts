import type { Usage } from '../contracts/usage.js';
import type { RequestFacts } from '../contracts/request-facts.js';
import { countTokens } from '../tokens/tokenizer.js';

/**
 * Usage of a stream that ended before the upstream reported its own (client gone, stream cut):
 * the prompt counted from the request's facts and the text actually delivered, with the o200k tokenizer
 * (this is billing, so exact counts; the tokenizer loads on first use). Recorded so a disconnect
 * never makes tokens disappear from the ledger.
 */
export function partialStreamUsage(facts: RequestFacts | undefined, delivered: readonly string[]): Usage {
  const promptTokens = facts ? facts.promptTokens(countTokens) : 0;
  const completionTokens = countTokens(delivered.join(''));
  return { promptTokens, completionTokens, reasoningTokens: 0, totalTokens: promptTokens + completionTokens };
}
