import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake vendor received. */
export interface FakeCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeVendor {
  url: string;
  calls: FakeCall[];
  close(): Promise<void>;
}

/**
 * A real HTTP server standing for a vendor: `answer` sees the method, path, headers and parsed
 * body of each request (so the fake can enforce the vendor's documented request shape, auth and
 * limits) and returns the status and JSON body the vendor would.
 */
export async function startFakeVendor(answer: (call: FakeCall) => { status?: number; json: unknown }): Promise<FakeVendor> {
  const calls: FakeCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown>;
      try {
        body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'invalid JSON' }));
        return;
      }
      const call = { method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'http://fake').pathname, headers: req.headers, body };
      calls.push(call);
      const answered = answer(call);
      res.writeHead(answered.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answered.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A float32-exact vector per text (bits a decimal round trip would change), for bit-for-bit checks. */
export function float32VectorOf(text: string, dimensions: number): number[] {
  let seed = 0;
  for (let i = 0; i < text.length; i++) seed = (seed * 31 + text.charCodeAt(i)) % 100_003;
  return Array.from({ length: dimensions }, (_, i) => Math.fround(Math.sin(seed + i * 7.13) / 3));
}

/** The float32 bit patterns of a vector: equal bits are equal vectors, to the last bit. */
export const bitsOf = (values: ArrayLike<number>): number[] => Array.from(new Uint32Array(new Float32Array(Array.from(values)).buffer));
