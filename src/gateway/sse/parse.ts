import { createParser } from 'eventsource-parser';

/** One parsed server-sent event. `data` is the raw text; translators decide whether to JSON-parse it. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/**
 * The one SSE parser of the gateway (CRLF, BOM, comments and events split across chunks are
 * handled by eventsource-parser). Yields, per upstream read, the events it completed: handling a
 * read's events together costs one step and one socket write, not one per event. Never yields an
 * empty batch.
 */
export async function* parseSseBatches(body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<SseEvent[]> {
  let pending: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event: SseEvent = { data: message.data };
      if (message.event) event.event = message.event;
      if (message.id) event.id = message.id;
      pending.push(event);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      yield pending;
      pending = [];
    }
  }
  parser.reset({ consume: true });
  if (pending.length > 0) yield pending;
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
