import type { Usage } from '../providers/types.js';
import { estimatePromptTokens } from '../ratelimit/estimate.js';
import { countTokens } from '../tokens/tokenizer.js';

/**
 * Usage of a stream that ended before the upstream reported its own (client gone, stream cut):
 * the prompt counted from the request and the text actually delivered, with the same tokenizer
 * as the token limits. Recorded so a disconnect never makes tokens disappear from the ledger.
 */
export function partialStreamUsage(body: unknown, delivered: readonly string[]): Usage {
  const promptTokens = estimatePromptTokens(body);
  const completionTokens = countTokens(delivered.join(''));
  return { promptTokens, completionTokens, reasoningTokens: 0, totalTokens: promptTokens + completionTokens };
}
