import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface FakeMcpUpstream {
  url: string;
  /** Headers of every HTTP request it got (to prove what the gateway sends and never sends). */
  seen: IncomingHttpHeaders[];
  /** `initialize` requests it answered (one per upstream session). */
  initializations: number;
  /** Tool calls it ran, by tool name. */
  calls: string[];
  /** Its server-to-client (GET) streams open now. */
  openStreams: number;
  close(): Promise<void>;
}

/**
 * A real MCP server on loopback built with the SDK (issue 31 tests), stateful like most: each
 * session its own transport. It ENFORCES its bearer (401 without it), as a hosted server does.
 * Tools: `echo` (text back), `fail` (a tool error, isError), `count` (progress notifications),
 * `whoami` (the Authorization it received: would show a leaked key), `add_tool` (adds `extra` to
 * this session's tools: the SDK then sends `tools/list_changed` on the session's GET stream).
 */
export async function startFakeMcpUpstream(options: { name: string; bearer?: string }): Promise<FakeMcpUpstream> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const state: FakeMcpUpstream = { url: '', seen: [], initializations: 0, calls: [], openStreams: 0, close: async () => undefined };

  const buildServer = (headers: () => IncomingHttpHeaders) => {
    const server = new McpServer({ name: options.name, version: '1.0.0' });
    server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, async ({ text }) => {
      state.calls.push('echo');
      return { content: [{ type: 'text', text: `${options.name}: ${text}` }] };
    });
    server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => {
      state.calls.push('fail');
      return { content: [{ type: 'text', text: 'the tool broke' }], isError: true };
    });
    server.registerTool('count', { description: 'Counts to n with progress', inputSchema: { n: z.number().int() } }, async ({ n }, extra) => {
      state.calls.push('count');
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: n } });
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] };
    });
    server.registerTool('whoami', { description: 'The Authorization header received', inputSchema: {} }, async () => {
      state.calls.push('whoami');
      return { content: [{ type: 'text', text: String(headers().authorization ?? 'none') }] };
    });
    server.registerTool('add_tool', { description: 'Adds the tool extra to this session', inputSchema: {} }, async () => {
      state.calls.push('add_tool');
      server.registerTool('extra', { description: 'Added at run time', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'extra' }] }));
      return { content: [{ type: 'text', text: 'added' }] };
    });
    server.registerResource('readme', 'file:///readme.txt', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: `readme of ${options.name}` }] }));
    return server;
  };

  const http: HttpServer = createServer(async (req, res) => {
    state.seen.push(req.headers);
    if (options.bearer && req.headers.authorization !== `Bearer ${options.bearer}`) {
      // The caller's header is not echoed: a gateway that leaked it would be caught elsewhere.
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    if (req.method === 'GET') {
      state.openStreams++;
      res.on('close', () => state.openStreams--);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = chunks.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
    // The stream is spent: the SDK's Node adapter (Hono's) reads `rawBody` instead.
    (req as { rawBody?: Buffer }).rawBody = raw;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport && body?.method === 'initialize') {
      state.initializations++;
      let current: IncomingHttpHeaders = req.headers;
      // keepAliveMs: the SDK sends a GET stream's head only with its first write; the gateway must not wait 15 s for it, and tests should not.
      transport = new StreamableHTTPServerTransport({ keepAliveMs: 100, sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void transports.set(id, transport!) });
      transport.onclose = () => {
        if (transport!.sessionId) transports.delete(transport!.sessionId);
      };
      const server = buildServer(() => current);
      (transport as unknown as { headersRef: (h: IncomingHttpHeaders) => void }).headersRef = (h) => (current = h);
      await server.connect(transport);
    }
    if (!transport) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    (transport as unknown as { headersRef: (h: IncomingHttpHeaders) => void }).headersRef(req.headers);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    for (const transport of transports.values()) await transport.close().catch(() => undefined);
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
