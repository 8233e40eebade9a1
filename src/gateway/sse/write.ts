import type { ServerResponse } from 'node:http';

/** An event to send: `data` is an object (serialised here) or text sent as is (e.g. `[DONE]`). */
export interface OutEvent {
  event?: string;
  data: unknown;
}

/** An event's data as an object, parsing it when a fast path sent it as JSON text. */
export function eventObject(out: OutEvent): unknown {
  if (typeof out.data !== 'string') return out.data;
  if (!out.data.startsWith('{')) return undefined;
  try {
    return JSON.parse(out.data) as unknown;
  } catch {
    return undefined;
  }
}

export function formatSse(out: OutEvent): string {
  const data = typeof out.data === 'string' ? out.data : JSON.stringify(out.data);
  return out.event ? `event: ${out.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/**
 * The one SSE writer. `write` resolves once the socket can take more, so a slow client slows the
 * upstream read instead of making the gateway buffer the stream in memory.
 */
export class SseWriter {
  private closed = false;

  constructor(private readonly raw: ServerResponse) {
    raw.once('close', () => {
      this.closed = true;
    });
  }

  get isClosed(): boolean {
    return this.closed || this.raw.destroyed;
  }

  /** Sets the status line and SSE headers (plus any extra); they leave with the first event. */
  open(extraHeaders: Record<string, string> = {}): void {
    if (this.raw.headersSent) return;
    this.raw.writeHead(200, { ...SSE_HEADERS, ...extraHeaders });
  }

  /**
   * Writes events in one socket write. Returns a promise only when the socket is full, to be
   * awaited before reading more from the upstream (backpressure without a promise per write).
   */
  write(events: readonly OutEvent[]): Promise<void> | undefined {
    if (events.length === 0 || this.isClosed) return undefined;
    let text = '';
    for (const out of events) text += formatSse(out);
    if (this.raw.write(text)) return undefined;
    // Both listeners go once either fires: a long stream to a slow client must not pile them up.
    const raw = this.raw;
    return new Promise((resolve) => {
      const settle = () => {
        raw.off('drain', settle);
        raw.off('close', settle);
        resolve();
      };
      raw.on('drain', settle);
      raw.on('close', settle);
    });
  }

  end(): void {
    if (!this.raw.writableEnded) this.raw.end();
  }
}
