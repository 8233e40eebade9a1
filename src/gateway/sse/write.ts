import type { ServerResponse } from 'node:http';
import { once } from 'node:events';

/** An event to send: `data` is an object (serialised here) or text sent as is (e.g. `[DONE]`). */
export interface OutEvent {
  event?: string;
  data: unknown;
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

  /** Sends the status line and SSE headers (plus any extra), once. */
  open(extraHeaders: Record<string, string> = {}): void {
    if (this.raw.headersSent) return;
    this.raw.writeHead(200, { ...SSE_HEADERS, ...extraHeaders });
    this.raw.flushHeaders();
  }

  async write(events: readonly OutEvent[]): Promise<void> {
    if (events.length === 0 || this.isClosed) return;
    let text = '';
    for (const out of events) text += formatSse(out);
    if (!this.raw.write(text)) {
      await Promise.race([once(this.raw, 'drain'), once(this.raw, 'close')]);
    }
  }

  end(): void {
    if (!this.raw.writableEnded) this.raw.end();
  }
}
