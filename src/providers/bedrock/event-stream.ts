/**
 * Bedrock's `application/vnd.amazon.eventstream` responses (clouds.md §2, "Binary framing") as the
 * SSE events the stream translators read. Messages are cut out by their length prefix and decoded
 * by @smithy/eventstream-codec, which checks both CRCs; a corrupt or truncated stream fails.
 *   event      → `event: <:event-type>` with the payload JSON as data; an InvokeModel `chunk`
 *                (`{"bytes":"<base64>"}`) is unwrapped to the model's own event, named by its `type`
 *   exception  → `event: exception`, data `{"__type": <:exception-type>, ...payload}`
 *   error      → `event: exception`, data `{"__type": <:error-code>, "message": <:error-message>}`
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { StreamBytesDecoder } from '../../contracts/translator.js';
import { GatewayError } from '../../errors.js';

/** prelude (total length, headers length, prelude CRC) + message CRC. */
const FRAME_OVERHEAD = 16;
/** The codec refuses larger messages anyway; a bigger length prefix is a corrupt stream, not a reason to buffer. */
const MAX_MESSAGE_BYTES = 24 * 1024 * 1024;
export const EXCEPTION_EVENT = 'exception';

const EMPTY = Buffer.alloc(0);

export function createEventStreamDecoder(): StreamBytesDecoder {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  /** Bytes of a message still arriving. */
  let pending: Buffer = EMPTY;
  /**
   * A corrupt message: the events before it in the same read are still handed on, and the next
   * call throws, so what the client sees does not depend on how the bytes were split into reads.
   */
  let failure: GatewayError | undefined;
  return {
    push(chunk: Buffer): Buffer {
      if (failure) throw failure;
      let bytes = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let text = '';
      try {
        while (bytes.length >= 4) {
          const total = bytes.readUInt32BE(0);
          if (total < FRAME_OVERHEAD || total > MAX_MESSAGE_BYTES) throw corrupt();
          if (bytes.length < total) break;
          text += toSse(decodeMessage(codec, bytes.subarray(0, total)));
          bytes = bytes.subarray(total);
        }
      } catch (error) {
        failure = error instanceof GatewayError ? error : corrupt(error);
        if (text === '') throw failure;
        bytes = EMPTY;
      }
      pending = bytes.length === 0 ? EMPTY : Buffer.from(bytes);
      return text === '' ? EMPTY : Buffer.from(text, 'utf8');
    },
    end(): void {
      if (failure) throw failure;
      if (pending.length > 0) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended inside an event');
    },
  };
}

const corrupt = (cause?: unknown): GatewayError => new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a corrupt event-stream message', { cause });

interface DecodedMessage {
  headers: Record<string, { type: string; value: unknown }>;
  body: Uint8Array;
}

function decodeMessage(codec: EventStreamCodec, frame: Buffer): DecodedMessage {
  try {
    return codec.decode(frame) as DecodedMessage;
  } catch (error) {
    throw corrupt(error);
  }
}

const header = (message: DecodedMessage, name: string): string | undefined => {
  const value = message.headers[name]?.value;
  return typeof value === 'string' ? value : undefined;
};

function toSse(message: DecodedMessage): string {
  const kind = header(message, ':message-type');
  const body = toUtf8(message.body);
  if (kind === 'exception') return sseText(EXCEPTION_EVENT, JSON.stringify({ ...payloadObject(body), __type: header(message, ':exception-type') ?? 'UnknownException' }));
  if (kind === 'error') return sseText(EXCEPTION_EVENT, JSON.stringify({ __type: header(message, ':error-code') ?? 'InternalFailure', message: header(message, ':error-message') ?? '' }));
  const type = header(message, ':event-type') ?? 'unknown';
  if (type === 'chunk') {
    const inner = Buffer.from(String(payloadObject(body).bytes ?? ''), 'base64').toString('utf8');
    const innerType = payloadObject(inner).type;
    return sseText(typeof innerType === 'string' ? innerType : 'unknown', inner);
  }
  return sseText(type, body);
}

function payloadObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not JSON');
  }
}

/** JSON text has no raw line breaks, so one `data:` line holds it (the relay's fast path reads it whole). */
const sseText = (event: string, data: string): string => `event: ${event}\ndata: ${data.replace(/\r?\n/g, ' ')}\n\n`;
