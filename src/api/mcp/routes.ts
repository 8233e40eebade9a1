import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { McpSessionStore, type UpstreamSessionRef } from '../../gateway/mcp/session-store.js';
import { OPEN_SESSIONS_WITHIN_MS } from '../../gateway/mcp/upstream.js';
import { buildGatewayServer } from './gateway-server.js';
import { mcpErrors } from './errors.js';
import { listen, NotificationStreams, revokedStreams } from './notification-stream.js';
import { AGGREGATE, serversOf, SESSION_HEADER, sessionOf } from './request-scope.js';

/**
 * The gateway as an MCP server over Streamable HTTP (issue 31): `/mcp` aggregates every server
 * the key may use (`<server>__<tool>`), `/mcp/{server}` is one server unprefixed. POST carries one
 * JSON-RPC message (the SDK's transport answers JSON or SSE); GET opens the server-to-client
 * stream that relays the upstreams' notifications (notification-stream.ts); DELETE ends the
 * session. The SDK's transport runs stateless per request; the session id is the gateway's own,
 * kept in the shared store, so any instance continues a session another started.
 */
/** The request body as documented: one JSON-RPC 2.0 message (request, notification or response); the SDK checks the rest. */
const JSON_RPC_MESSAGE = {
  type: 'object',
  required: ['jsonrpc'],
  properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer'] }, method: { type: 'string' }, params: { type: 'object' } },
  description: 'One JSON-RPC 2.0 message of the Model Context Protocol',
} as const;

export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const config = { errors: mcpErrors, operation: 'mcp' };
  const schema = (summary: string) => ({ summary, tags: ['mcp'], security: [{ bearer: [] }], hide: false });
  // This app's open GET streams: ended by a DELETE of their session, a revocation, and when the app closes.
  const streams = new NotificationStreams(revokedStreams(app));
  // Sessions no client asks for again end when idle (their upstream sessions with them: main.ts).
  const { sessions } = app.gateway.mcp;
  const sweep = setInterval(() => void sessions.sweep().catch(() => undefined), Math.min(60_000, Math.max(100, Math.floor(sessions.idleMs / 2)))).unref();
  app.addHook('preClose', (done) => {
    clearInterval(sweep);
    streams.closeAll();
    done();
  });
  for (const path of ['/mcp', '/mcp/:server']) {
    app.post(path, { config, schema: { ...schema('MCP (Streamable HTTP): one JSON-RPC message'), body: JSON_RPC_MESSAGE } }, (request, reply) => post(request, reply, streams));
    app.get(path, { config, schema: schema('MCP server-to-client stream (SSE): the upstreams\' notifications') }, (request, reply) => listen(request, reply, streams));
    app.delete(path, { config, schema: schema('End an MCP session') }, (request, reply) => end(request, reply, streams));
  }
}

const isInitialize = (body: unknown): boolean =>
  (Array.isArray(body) ? body : [body]).some((message) => typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize');

/** `server/discover` outside a session: the stateless revision's probe for what a server speaks. */
const isDiscoverProbe = (request: FastifyRequest): boolean => {
  const body = request.body as { method?: unknown; id?: unknown } | null;
  return body?.method === 'server/discover' && body.id !== undefined && request.headers[SESSION_HEADER] === undefined;
};

async function post(request: FastifyRequest, reply: FastifyReply, streams: NotificationStreams): Promise<void> {
  const { scope, servers } = await serversOf(request);
  const { sessions } = request.server.gateway.mcp;
  const key = request.gw.key!;
  let sessionId: string | undefined;
  let upstreams: Record<string, UpstreamSessionRef> = {};
  if (isInitialize(request.body)) {
    sessionId = McpSessionStore.newId();
    // The upstream sessions open with the gateway's: the client's GET stream, opened next, listens on them.
    upstreams = await request.server.gateway.mcp.upstreams.openSessions(servers, {}, OPEN_SESSIONS_WITHIN_MS);
    // Past the key's cap its least recently used sessions end (their upstream sessions too: main.ts); their streams here now.
    for (const ended of await sessions.create(sessionId, key.id, scope, upstreams)) streams.closeSession(ended.id);
  } else if (isDiscoverProbe(request)) {
    // A 2026-07-28 client's probe (Claude Code sends one first): the answer that marks a server of
    // the initialize era, so it falls back to initialize. The SDK speaks up to 2025-11-25.
    const id = (request.body as { id: string | number }).id;
    return void reply.code(200).send({ jsonrpc: '2.0', id, error: { code: ErrorCode.MethodNotFound, message: 'Method not found: server/discover (this gateway speaks MCP up to 2025-11-25; send initialize)' } });
  } else {
    const session = await sessionOf(request, reply, scope);
    if (!session) return;
    sessionId = session.id;
    upstreams = session.upstreams;
  }
  const server = buildGatewayServer({ request, reply, key, servers, single: scope !== AGGREGATE, sessionId, upstreams });
  // Stateless for the SDK (no session check of its own): the session is ours, checked above.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  reply.hijack();
  reply.raw.on('close', () => void server.close().catch(() => undefined));
  if (isInitialize(request.body)) reply.raw.setHeader(SESSION_HEADER, sessionId);
  // Fastify has read the body: the SDK's Node adapter (Hono's) takes it from `rawBody` instead of the spent stream.
  (request.raw as { rawBody?: Buffer }).rawBody = Buffer.from(JSON.stringify(request.body ?? null));
  await transport.handleRequest(request.raw, reply.raw, request.body);
}

async function end(request: FastifyRequest, reply: FastifyReply, streams: NotificationStreams): Promise<void> {
  const { scope } = await serversOf(request);
  const session = await sessionOf(request, reply, scope);
  if (!session) return;
  const { mcp } = request.server.gateway;
  await mcp.sessions.remove(session.id);
  // Its GET stream here ends now; one on another instance ends with the upstream sessions below.
  streams.closeSession(session.id);
  // The upstream sessions it opened end too (best effort: an upstream may not support DELETE).
  await mcp.upstreams.endSessions(session.upstreams, await mcp.servers.all());
  void reply.code(200).send();
}
