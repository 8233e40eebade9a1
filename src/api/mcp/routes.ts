import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { GatewayError } from '../../errors.js';
import type { McpServer } from '../../gateway/mcp/server-store.js';
import { McpSessionStore, type McpSession } from '../../gateway/mcp/session-store.js';
import { serversForKey } from '../../gateway/mcp/tool-names.js';
import { buildGatewayServer } from './gateway-server.js';
import { HTTP_LEVEL_ERROR, jsonRpcError, mcpErrors, SESSION_NOT_FOUND } from './errors.js';

const SESSION_HEADER = 'mcp-session-id';
const AGGREGATE = '*';

/**
 * The gateway as an MCP server over Streamable HTTP (issue 31): `/mcp` aggregates every server
 * the key may use (`<server>__<tool>`), `/mcp/{server}` is one server unprefixed. POST carries one
 * JSON-RPC message (the SDK's transport answers JSON or SSE); GET answers 405 (the spec's "no
 * stream here"; clients go on without one); DELETE ends the session. The SDK's transport runs
 * stateless per request; the session id is the gateway's own, kept in the shared store, so any
 * instance continues a session another started.
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
  for (const path of ['/mcp', '/mcp/:server']) {
    app.post(path, { config, schema: { ...schema('MCP (Streamable HTTP): one JSON-RPC message'), body: JSON_RPC_MESSAGE } }, (request, reply) => post(request, reply));
    app.get(path, { config, schema: schema('MCP server-to-client stream: not offered (405)') }, (request, reply) =>
      reply.code(405).header('allow', 'POST, DELETE').send(jsonRpcError(HTTP_LEVEL_ERROR, 'Method not allowed: this gateway opens no standalone SSE stream; answers come on each POST')),
    );
    app.delete(path, { config, schema: schema('End an MCP session') }, (request, reply) => end(request, reply));
  }
}

/** The servers the request may reach, or the refusal (404 unknown server, 403 no permission). */
async function serversOf(request: FastifyRequest): Promise<{ scope: string; servers: McpServer[] }> {
  const key = request.gw.key!;
  const all = await request.server.gateway.mcp.servers.all();
  const name = (request.params as { server?: string }).server;
  if (name === undefined) {
    const servers = serversForKey(key, all);
    if (servers.length === 0) throw new GatewayError('GW_PERMISSION_DENIED', 'This API key may use no MCP server: an operator grants them (the key\'s mcp field)');
    return { scope: AGGREGATE, servers };
  }
  const server = all.get(name);
  if (!server || server.enabled === false) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No MCP server '${name}'`);
  if (!key.mcp || !Object.hasOwn(key.mcp, name)) throw new GatewayError('GW_PERMISSION_DENIED', `This API key may not use the MCP server '${name}'`);
  return { scope: name, servers: [server] };
}

/** The session the request names, or the 400/404 the spec asks for (404: the client re-initializes). */
async function sessionOf(request: FastifyRequest, reply: FastifyReply, scope: string): Promise<McpSession | undefined> {
  const id = request.headers[SESSION_HEADER];
  if (typeof id !== 'string' || id === '') {
    void reply.code(400).send(jsonRpcError(HTTP_LEVEL_ERROR, 'Bad Request: Mcp-Session-Id header is required'));
    return undefined;
  }
  const session = await request.server.gateway.mcp.sessions.find(id);
  // Another key's session, or one of another endpoint, is not found either: ids are not shared.
  if (!session || session.keyId !== request.gw.key!.id || session.scope !== scope) {
    void reply.code(404).send(jsonRpcError(SESSION_NOT_FOUND, 'Session not found'));
    return undefined;
  }
  return session;
}

const isInitialize = (body: unknown): boolean =>
  (Array.isArray(body) ? body : [body]).some((message) => typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize');

async function post(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { scope, servers } = await serversOf(request);
  const { sessions } = request.server.gateway.mcp;
  const key = request.gw.key!;
  let sessionId: string | undefined;
  let upstreams = {};
  if (isInitialize(request.body)) {
    sessionId = McpSessionStore.newId();
    await sessions.create(sessionId, key.id, scope);
  } else {
    const session = await sessionOf(request, reply, scope);
    if (!session) return;
    sessionId = session.id;
    upstreams = session.upstreams;
  }
  const server = buildGatewayServer({ request, key, servers, single: scope !== AGGREGATE, sessionId, upstreams });
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

async function end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { scope, servers } = await serversOf(request);
  const session = await sessionOf(request, reply, scope);
  if (!session) return;
  const { mcp } = request.server.gateway;
  await mcp.sessions.remove(session.id);
  // The upstream sessions it opened end too (best effort: an upstream may not support DELETE).
  await Promise.all(
    Object.entries(session.upstreams).map(([name, ref]) => {
      const upstream = servers.find((candidate) => candidate.name === name);
      return upstream ? mcp.upstreams.end(upstream, ref) : undefined;
    }),
  );
  void reply.code(200).send();
}
