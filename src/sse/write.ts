import type { ServerResponse } from 'node:http';
import type { OutEvent } from '../contracts/sse-event.js';

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
  constructor(private readonly raw: ServerResponse) {}

  /** The client left (the response is destroyed at its close) or the stream was ended. */
  get isClosed(): boolean {
    return this.raw.destroyed || this.raw.writableEnded;
  }

  /** Sets the status line and SSE headers (plus any extra); they leave with the first event. */
  open(extraHeaders: Record<string, unknown> = {}): void {
    if (this.raw.headersSent) return;
    this.raw.writeHead(200, { ...SSE_HEADERS, ...extraHeaders } as Record<string, string>);
  }

  /**
   * Writes SSE text (one or more whole events) in one socket write. Returns a promise only when
   * the socket is full, to be awaited before reading more from the upstream (backpressure
   * without a promise per write).
   */
  write(text: string): Promise<void> | undefined {
    if (text === '' || this.isClosed) return undefined;
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
