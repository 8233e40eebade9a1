import type { FastifyInstance } from 'fastify';
import type { McpServerConfig } from '../../config/schema.js';
import { GatewayError } from '../../errors.js';
import type { McpServer } from '../../gateway/mcp/server-store.js';
import { UpstreamMcpError } from '../../gateway/mcp/upstream.js';
import { buildUpstreamGuard, refusedUrl } from '../../gateway/upstream-guard.js';
import { mcpServerUpstreamUrls } from '../../gateway/upstream-urls.js';
import { validated } from '../management/route-validation.js';
import { CreateMcpServerBody, McpServerParams, PatchMcpServerBody, validateCreateMcpServer, validatePatchMcpServer } from './mcp-server-schemas.js';

/**
 * Upstream MCP servers for operators (issue 31): list, add, change, test and remove them at run
 * time. Credentials (`auth`, `headers`) are write-only: sealed at rest, shown only as the auth's
 * type and the header names. Every instance sees a change within a second (the store's cache).
 */
export async function adminMcpServerRoutes(app: FastifyInstance, { opts }: { opts: (summary: string, schema?: Record<string, unknown>) => object }): Promise<void> {
  const { mcp, config } = app.gateway;
  const upstreamGuard = buildUpstreamGuard(config);

  const view = (server: McpServer) => {
    const health = mcp.health.of(server.name);
    return {
      object: 'mcp_server' as const,
      name: server.name,
      url: server.url,
      description: server.description ?? null,
      origin: server.origin,
      enabled: server.enabled !== false,
      auth: { type: server.auth?.type ?? 'none', ...(server.auth?.type === 'header' ? { header: server.auth.header } : {}), ...(server.auth?.type === 'oauth_client_credentials' ? { token_url: server.auth.token_url, client_id: server.auth.client_id } : {}) },
      header_names: Object.keys(server.headers ?? {}),
      tools: server.tools ?? null,
      timeout_ms: server.timeout_ms ?? null,
      max_result_bytes: server.max_result_bytes ?? null,
      health: {
        status: health.status,
        last_ok_at: health.lastOkAt === null ? null : new Date(health.lastOkAt).toISOString(),
        last_error: health.lastError,
        last_error_at: health.lastErrorAt === null ? null : new Date(health.lastErrorAt).toISOString(),
        tools_discovered: health.tools,
      },
    };
  };
  const found = async (name: string, fresh = false): Promise<McpServer> => {
    const server = await mcp.servers.get(name, fresh);
    if (!server) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No MCP server '${name}'`);
    return server;
  };
  const checkUrls = (server: McpServerConfig): void => {
    const { url } = server;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new GatewayError('GW_REQ_INVALID_PARAM', "'url' must be an absolute http(s) URL, e.g. https://mcp.example.com/mcp", { param: 'url' });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new GatewayError('GW_REQ_INVALID_PARAM', "'url' must use http or https", { param: 'url' });
    const refused = refusedUrl(upstreamGuard, mcpServerUpstreamUrls(server));
    if (refused) throw new GatewayError('GW_REQ_INVALID_PARAM', refused.message, { param: refused.field });
  };
  const strip = ({ origin: _origin, ...server }: McpServer): McpServerConfig => server;

  app.get('/admin/api/mcp-servers', opts('Upstream MCP servers, their tools and health (never their credentials)'), async () => ({
    object: 'list' as const,
    data: [...(await mcp.servers.all(true)).values()].map(view),
  }));

  app.get('/admin/api/mcp-servers/:name', opts('One upstream MCP server', { params: McpServerParams }), async (request) => view(await found((request.params as { name: string }).name, true)));

  app.post(
    '/admin/api/mcp-servers',
    { ...opts('Publish an upstream MCP server (Streamable HTTP); credentials are encrypted at rest and never returned', { body: CreateMcpServerBody }), validatorCompiler: validated(validateCreateMcpServer) },
    async (request, reply) => {
      const body = request.body as McpServerConfig;
      if (await mcp.servers.get(body.name, true)) throw new GatewayError('GW_CONFLICT', `An MCP server named '${body.name}' exists already; change it with PATCH /admin/api/mcp-servers/${body.name}`);
      checkUrls(body);
      await mcp.servers.put(body);
      return reply.code(201).send(view(await found(body.name, true)));
    },
  );

  app.patch(
    '/admin/api/mcp-servers/:name',
    { ...opts('Change an MCP server (null removes a field; credentials not given stay as they are)', { params: McpServerParams, body: PatchMcpServerBody }), validatorCompiler: validated(validatePatchMcpServer) },
    async (request) => {
      const server = await found((request.params as { name: string }).name, true);
      const next: Record<string, unknown> = { ...strip(server) };
      for (const [field, value] of Object.entries(request.body as Record<string, unknown>)) {
        if (value === null) delete next[field];
        else next[field] = value;
      }
      checkUrls(next as McpServerConfig);
      await mcp.servers.put(next as McpServerConfig);
      mcp.health.forget(server.name);
      return view(await found(server.name, true));
    },
  );

  app.delete('/admin/api/mcp-servers/:name', opts('Remove an MCP server added at run time (keys that name it lose it at once)', { params: McpServerParams }), async (request, reply) => {
    const { name } = request.params as { name: string };
    if (!(await mcp.servers.remove(name))) {
      if (mcp.servers.isFileServer(name)) throw new GatewayError('GW_CONFLICT', `MCP server '${name}' is defined in the configuration file: remove it there, or disable it here (PATCH enabled: false)`);
      throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No MCP server '${name}'`);
    }
    mcp.health.forget(name);
    return reply.code(204).send();
  });

  app.post('/admin/api/mcp-servers/:name/test', opts('Connect to an MCP server and list its tools', { params: McpServerParams }), async (request) => {
    const server = await found((request.params as { name: string }).name, true);
    try {
      const { value, ref } = await mcp.upstreams.run(server, undefined, (client) => client.listTools());
      // A test keeps no session upstream.
      if (ref) await mcp.upstreams.end(server, ref);
      const tools = value.tools.map((tool) => tool.name);
      mcp.health.toolsSeen(server.name, tools);
      return { ok: true, tools, error: null };
    } catch (error) {
      if (error instanceof UpstreamMcpError) return { ok: false, tools: [], error: error.message };
      throw error;
    }
  });
}
