import type { GatewayError } from '../../errors.js';
import { eventObject } from '../../sse/write.js';
import { type OutEvent } from '../../contracts/sse-event.js';
import { renderChatError } from './errors.js';

/**
 * A chat or messages stream that fails after its first byte ends with one `data:` event holding
 * the family's error body, and no `[DONE]`: a client must not mistake a cut stream for a finished one.
 */
export const renderChatStreamError = (error: GatewayError): OutEvent[] => [{ data: renderChatError(error) }];

/** The answer and reasoning text of one chat.completion.chunk. */
export function chatChunkText(out: OutEvent): string {
  const chunk = eventObject(out) as { choices?: Array<{ delta?: { content?: unknown; reasoning_content?: unknown } }> } | undefined;
  if (!chunk?.choices) return '';
  let text = '';
  for (const choice of chunk.choices) {
    if (typeof choice.delta?.content === 'string') text += choice.delta.content;
    if (typeof choice.delta?.reasoning_content === 'string') text += choice.delta.reasoning_content;
  }
  return text;
}

