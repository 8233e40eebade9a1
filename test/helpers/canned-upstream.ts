import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a canned upstream answers one request with: a JSON body, or SSE events (`event` optional). */
export type CannedAnswer = { json: unknown; status?: number } | { sse: Array<{ event?: string; data: unknown }> };

export interface CannedUpstream {
  url: string;
  /** Request bodies received, in order. */
  bodies: unknown[];
  close(): Promise<void>;
}

/**
 * A real HTTP server speaking a vendor's wire format with answers fixed by the test (issue 21's
 * billing tests need exact usage shapes: cache writes by TTL, cached and reasoning tokens), as
 * the vendor documents them. `answer` sees the path and the parsed body.
 */
export async function startCannedUpstream(answer: (path: string, body: Record<string, unknown>) => CannedAnswer): Promise<CannedUpstream> {
  const bodies: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      bodies.push(body);
      const answered = answer(new URL(req.url ?? '/', 'http://upstream').pathname, body);
      if ('json' in answered) {
        res.writeHead(answered.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answered.json));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const frame of answered.sse) res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
