import type { StreamTextExtractor } from '../contracts/translator.js';
import type { Usage } from '../contracts/usage.js';
import type { RequestFacts } from '../contracts/request-facts.js';
import { SseDecoder } from '../sse/parse.js';
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

/** What a stream relayed to its client, handed to the usage recorder when the upstream reported no usage. */
export interface RelayedStream {
  /** The request's facts (its prompt is counted). */
  facts: RequestFacts | undefined;
  /** The SSE text written to the client, one string per write. */
  sent: readonly string[];
  /** The family's reader of an event's text. */
  deliveredText: StreamTextExtractor;
}

/** A relayed stream's usage: its prompt, and the text of each event sent (parsed back from the SSE written). */
export function relayedStreamUsage({ facts, sent, deliveredText }: RelayedStream): Usage {
  const decoder = new SseDecoder();
  const events = sent.flatMap((text) => decoder.feed(text));
  return partialStreamUsage(facts, [...events, ...decoder.end()].map(deliveredText));
}
