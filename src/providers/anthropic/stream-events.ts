/** Reading Anthropic's named stream events (anthropic.md "Streaming"), for every pair that consumes them. */
import { GatewayError } from '../../errors.js';
import { upstreamStatusError } from '../../providers/upstream-errors.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import { ANTHROPIC_STATUS_BY_ERROR_TYPE, type AnthropicMessagesEvent } from './wire.js';

/** An `error` event after HTTP 200 (e.g. overloaded_error) fails the stream like the matching status. */
export function streamError(error: { type?: unknown; message?: unknown } | undefined): GatewayError {
  const type = typeof error?.type === 'string' ? error.type : 'api_error';
  const status = Object.hasOwn(ANTHROPIC_STATUS_BY_ERROR_TYPE, type)
    ? ANTHROPIC_STATUS_BY_ERROR_TYPE[type as keyof typeof ANTHROPIC_STATUS_BY_ERROR_TYPE]
    : 500;
  return upstreamStatusError(status, typeof error?.message === 'string' ? error.message : undefined);
}

const KNOWN_EVENTS = new Set<string>([
  'message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error',
]);

/** Returns undefined for event types this translator does not know (Anthropic may add some). */
export function parseAnthropicEvent(event: SseEvent): AnthropicMessagesEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not JSON');
  }
  if (!data || typeof data !== 'object') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not an object');
  const record = data as Record<string, unknown>;
  // The JSON `type` equals the SSE event name; either is enough to route the event.
  const type = typeof record.type === 'string' ? record.type : (event.event ?? '');
  if (!KNOWN_EVENTS.has(type)) return undefined;
  const isMalformed =
    (type === 'message_start' && (!record.message || typeof record.message !== 'object')) ||
    (type.startsWith('content_block_') && typeof record.index !== 'number') ||
    ((type === 'content_block_delta' || type === 'message_delta') && (!record.delta || typeof record.delta !== 'object')) ||
    (type === 'content_block_start' && (!record.content_block || typeof record.content_block !== 'object'));
  if (isMalformed) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream sent a malformed ${type} event`);
  return { ...record, type } as AnthropicMessagesEvent;
}
