import { createParser } from 'eventsource-parser';
import type { SseEvent } from '../contracts/sse-event.js';

/**
 * The one SSE parser of the gateway (CRLF, BOM, comments and events split across chunks are
 * handled by eventsource-parser). `feed` takes one read of the upstream and returns the events
 * it completed: handling a read's events together costs one step and one socket write, not one
 * per event.
 */
export class SseDecoder {
  private pending: SseEvent[] = [];
  private readonly decoder = new TextDecoder();
  private readonly parser;

  /** `onComment`: a `:` line arrived (stream priming counts a keep-alive as a sign of life). */
  constructor(options: { onComment?: () => void } = {}) {
    this.parser = createParser({
      onEvent: (message) => {
        const event: SseEvent = { data: message.data };
        if (message.event) event.event = message.event;
        if (message.id) event.id = message.id;
        this.pending.push(event);
      },
      ...(options.onComment ? { onComment: options.onComment } : {}),
    });
  }

  feed(chunk: Uint8Array | string): SseEvent[] {
    this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
    return this.take();
  }

  /**
   * The input is over: an event left without its closing blank line still counts. The SSE spec
   * drops it, but the vendors' own SDKs keep it, and dropping a final `data: [DONE]` would turn a
   * complete stream into a cut one.
   */
  end(): SseEvent[] {
    this.parser.feed(this.decoder.decode() + '\n\n');
    this.parser.reset();
    return this.take();
  }

  private take(): SseEvent[] {
    if (this.pending.length === 0) return NO_EVENTS;
    const events = this.pending;
    this.pending = [];
    return events;
  }
}

const NO_EVENTS: SseEvent[] = [];

/** The events of each read, for callers that iterate a body. Never yields an empty batch. */
export async function* parseSseBatches(body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<SseEvent[]> {
  const decoder = new SseDecoder();
  for await (const chunk of body) {
    const events = decoder.feed(chunk);
    if (events.length > 0) yield events;
  }
  const last = decoder.end();
  if (last.length > 0) yield last;
}

/** Event by event, for callers that want them one at a time. */
export async function* parseSse(body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  for await (const batch of parseSseBatches(body)) yield* batch;
}

/** Parses a whole SSE text at once (tests and fixtures). */
export async function parseSseText(text: string): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of parseSse([text])) events.push(event);
  return events;
}
