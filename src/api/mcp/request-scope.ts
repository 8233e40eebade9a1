import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors.js';
import type { McpServer } from '../../gateway/mcp/server-store.js';
import type { McpSession } from '../../gateway/mcp/session-store.js';
import { grantsServer, serversForKey } from '../../gateway/mcp/tool-names.js';
import { MCP_ERROR } from '../../gateway/mcp/json-rpc-errors.js';
import { jsonRpcError } from './errors.js';

export const SESSION_HEADER = 'mcp-session-id';
/** The scope of the aggregate `/mcp` (a server's name is the scope of `/mcp/{server}`). */
export const AGGREGATE = '*';

/** The servers the request may reach, or the refusal (404 unknown server, 403 no permission). */
export async function serversOf(request: FastifyRequest): Promise<{ scope: string; servers: McpServer[] }> {
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
  // A grant of no tools (`{name: []}`) reaches none of the server: not its resources or prompts either.
  if (!grantsServer(key, name)) throw new GatewayError('GW_PERMISSION_DENIED', `This API key may not use the MCP server '${name}'`);
  return { scope: name, servers: [server] };
}

/** The session the request names, or the 400/404 the spec asks for (404: the client re-initializes). */
export async function sessionOf(request: FastifyRequest, reply: FastifyReply, scope: string): Promise<McpSession | undefined> {
  const id = request.headers[SESSION_HEADER];
  if (typeof id !== 'string' || id === '') {
    void reply.code(400).send(jsonRpcError(MCP_ERROR.httpLevel, 'Bad Request: Mcp-Session-Id header is required'));
    return undefined;
  }
  const session = await request.server.gateway.mcp.sessions.find(id);
  // Another key's session, or one of another endpoint, is not found either: ids are not shared.
  if (!session || session.keyId !== request.gw.key!.id || session.scope !== scope) {
    void reply.code(404).send(jsonRpcError(MCP_ERROR.sessionNotFound, 'Session not found'));
    return undefined;
  }
  return session;
}
