import type { StreamTextExtractor } from '../contracts/translator.js';
import type { Usage } from '../contracts/usage.js';
import { SseDecoder } from '../sse/parse.js';
import { promptTokens as countPromptTokens } from '../ratelimit/estimate.js';
import { countTokens } from '../tokens/tokenizer.js';

/**
 * Usage of a stream that ended before the upstream reported its own (client gone, stream cut):
 * the prompt counted from the request and the text actually delivered, with the o200k tokenizer
 * (this is billing, so exact counts; the tokenizer loads on first use). Recorded so a disconnect
 * never makes tokens disappear from the ledger.
 */
export function partialStreamUsage(body: unknown, delivered: readonly string[]): Usage {
  const promptTokens = countPromptTokens(body, countTokens);
  const completionTokens = countTokens(delivered.join(''));
  return { promptTokens, completionTokens, reasoningTokens: 0, totalTokens: promptTokens + completionTokens };
}

/** What a stream relayed to its client, handed to the usage recorder when the upstream reported no usage. */
export interface RelayedStream {
  /** The client's request body (its prompt is counted). */
  body: unknown;
  /** The SSE text written to the client, one string per write. */
  sent: readonly string[];
  /** The family's reader of an event's text. */
  deliveredText: StreamTextExtractor;
}

/** A relayed stream's usage: its prompt, and the text of each event sent (parsed back from the SSE written). */
export function relayedStreamUsage({ body, sent, deliveredText }: RelayedStream): Usage {
  const decoder = new SseDecoder();
  const events = sent.flatMap((text) => decoder.feed(text));
  return partialStreamUsage(body, [...events, ...decoder.end()].map(deliveredText));
}
