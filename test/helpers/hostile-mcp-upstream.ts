import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileMcpUpstream {
  url: string;
  /** `initialize` requests answered (one upstream session each). */
  initializations: number;
  /** Session ids it was asked to end (HTTP DELETE with Mcp-Session-Id). */
  deleted: string[];
  /** Session ids it gave out and has not been asked to end. */
  live: Set<string>;
  /** Its server-to-client (GET) streams open now. */
  openStreams: number;
  /** Methods it received, in order. */
  methods: string[];
  /** `huge` results: bytes written before the gateway closed the connection, and whether it did so before the end. */
  huge: { written: number; cutOff: boolean }[];
  /** Bytes the next `huge` call answers with. */
  hugeBytes: number;
  /** When set, a GET stream sends one event of `hugeBytes` (recorded in `huge` too). */
  hugeEventOnGet: boolean;
  close(): Promise<void>;
}

/** Tool names a hostile server lists beside its ordinary ones: markup and a script URL. */
export const HOSTILE_TOOL_NAMES = ['<img src=x onerror=alert(1)>', 'javascript:alert(1)'];

/**
 * An MCP server written by hand over Streamable HTTP (JSON answers, no SDK), to misbehave as
 * the SDK's own servers would not: tools named with markup, a `huge` tool whose result is
 * `hugeBytes` long (written in 64 KiB pieces as the socket drains, so what it wrote before the
 * gateway hung up is known), resources and prompts, GET streams and DELETE counted.
 */
export async function startHostileMcpUpstream(options: { hugeBytes?: number } = {}): Promise<HostileMcpUpstream> {
  const state: HostileMcpUpstream = { url: '', initializations: 0, deleted: [], live: new Set(), openStreams: 0, methods: [], huge: [], hugeBytes: options.hugeBytes ?? 1024 * 1024, hugeEventOnGet: false, close: async () => undefined };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const answer = (method: string, params: Record<string, unknown>): unknown => {
    switch (method) {
      case 'tools/list':
        return { tools: ['echo', 'huge', ...HOSTILE_TOOL_NAMES].map((name) => ({ name, description: name, inputSchema: { type: 'object' } })) };
      case 'tools/call':
        return { content: [{ type: 'text', text: `called ${String(params.name)}` }] };
      case 'resources/list':
        return { resources: [{ uri: 'file:///secret.txt', name: 'secret' }] };
      case 'resources/read':
        return { contents: [{ uri: String(params.uri), text: 'the resource text' }] };
      case 'prompts/list':
        return { prompts: [{ name: 'greet' }] };
      case 'prompts/get':
        return { messages: [{ role: 'user', content: { type: 'text', text: 'the prompt text' } }] };
      default:
        return undefined;
    }
  };

  /** A JSON-RPC answer (or an SSE event) of about `bytes`, written piece by piece with backpressure. */
  const writeHuge = (res: ServerResponse, id: unknown, bytes: number, sse = false) => {
    const record = { written: 0, cutOff: false };
    state.huge.push(record);
    const message = `{"jsonrpc":"2.0","${sse ? 'method":"notifications/message","params":{"data' : `id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text`}":"`;
    const head = Buffer.from(sse ? `data: ${message}` : message);
    const tail = Buffer.from(sse ? '"}}\n\n' : '"}]}}');
    const piece = Buffer.alloc(64 * 1024, 'a');
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json' });
    res.on('close', () => (record.cutOff = !res.writableFinished));
    res.write(head);
    const pump = () => {
      while (record.written < bytes) {
        if (res.destroyed) return;
        record.written += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end(tail);
    };
    pump();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = req.headers['mcp-session-id'];
    if (req.method === 'DELETE') {
      if (typeof sessionId === 'string') {
        state.deleted.push(sessionId);
        state.live.delete(sessionId);
      }
      return void res.writeHead(200).end();
    }
    if (req.method === 'GET') {
      if (typeof sessionId !== 'string' || !state.live.has(sessionId)) return void json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      state.openStreams++;
      res.on('close', () => state.openStreams--);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': open\n\n');
      if (state.hugeEventOnGet) writeHuge(res, null, state.hugeBytes, true);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method: string; params?: Record<string, unknown> };
    state.methods.push(message.method);
    if (message.method === 'initialize') {
      state.initializations++;
      const id = randomUUID();
      state.live.add(id);
      const result = { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {}, resources: {}, prompts: {} }, serverInfo: { name: 'hostile', version: '1' } };
      return void json(res, 200, { jsonrpc: '2.0', id: message.id, result }, { 'mcp-session-id': id });
    }
    if (typeof sessionId !== 'string' || !state.live.has(sessionId)) return void json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'tools/call' && message.params?.name === 'huge') return writeHuge(res, message.id, state.hugeBytes);
    const result = answer(message.method, message.params ?? {});
    if (result === undefined) return void json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
    json(res, 200, { jsonrpc: '2.0', id: message.id, result });
  };

  const http = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
