import type { GatewayError } from '../../errors.js';
import { eventObject } from '../../sse/write.js';
import { type OutEvent } from '../../contracts/sse-event.js';
import type { StreamErrorRenderer } from '../../contracts/translator.js';
import { renderAnthropicError } from './errors.js';

/**
 * An Anthropic-native stream that fails after its first byte ends with Anthropic's `error` event
 * (anthropic.md "Streaming"), which the SDKs read and raise; no `message_stop` follows.
 */
export const anthropicStreamError =
  (requestId: string): StreamErrorRenderer =>
  (error: GatewayError): OutEvent[] => [{ event: 'error', data: renderAnthropicError(error, requestId) }];

/** The answer, thinking and tool-input text of one Anthropic event (usage of a stream cut before its usage). */
export function anthropicEventText(out: OutEvent): string {
  const event = eventObject(out) as { type?: string; delta?: { text?: unknown; thinking?: unknown; partial_json?: unknown } } | undefined;
  if (event?.type !== 'content_block_delta' || !event.delta) return '';
  const { text, thinking, partial_json: json } = event.delta;
  return typeof text === 'string' ? text : typeof thinking === 'string' ? thinking : typeof json === 'string' ? json : '';
}
