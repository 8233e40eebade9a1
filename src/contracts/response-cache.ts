import type { SseEvent, OutEvent } from './sse-event.js';
import type { Usage } from './usage.js';

/**
 * How one endpoint family's answers go into and come out of the response cache (issue 32). Entries
 * hold the family's non-stream JSON answer; each family folder makes one of these from its wire
 * types, so the cache itself never reads a body.
 */
export interface ResponseCacheCodec {
  /**
   * The non-stream answer a complete stream adds up to, from the events the client was sent;
   * undefined when the stream did not end the way a complete answer ends (nothing is stored).
   * `usage` is the stream's, for families whose streams may leave it out (chat without the usage chunk).
   */
  fromStream?(events: readonly SseEvent[], usage: Usage): unknown;
  /** The stream events that replay a non-stream answer (reasoning, tool calls and usage included). */
  toStream?(body: unknown, options: { includeUsage: boolean }): OutEvent[];
  /** The answer ends in tool calls the client must run (stored only when the operator says so). */
  hasClientToolCalls(body: unknown): boolean;
  /**
   * Semantic mode: the request's last user turn as text, and the request without it (system
   * prompt, tools, history, parameters: what a similar question must share exactly). Undefined
   * when the request does not end in a text-only user turn.
   */
  splitLastUserTurn?(body: unknown): { text: string; context: unknown } | undefined;
}
