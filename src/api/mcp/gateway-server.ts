import type { FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema, McpError, ReadResourceRequestSchema, type CallToolResult, type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiKey } from '../../keys/key-store.js';
import type { McpServer } from '../../gateway/mcp/server-store.js';
import { DEFAULT_MCP_TIMEOUT_MS, UpstreamMcpError } from '../../gateway/mcp/upstream.js';
import { isSafeToolName, mayCallTool, namespacedTool, splitToolName } from '../../gateway/mcp/tool-names.js';
import { catalogueCodeOf, MCP_ERROR } from '../../gateway/mcp/json-rpc-errors.js';
import { ERRORS, GatewayError } from '../../errors.js';
import { holdParallelSlot } from '../../plugins/admission-gate.js';
import type { UpstreamSessionRef } from '../../gateway/mcp/session-store.js';
import { limitsFor } from '../../ratelimit/policy.js';
import { recordToolCall, type ToolCallRecord } from './tool-call-log.js';
import { toolCallSpanEnd, toolCallSpanStart } from '../../telemetry/tool-call-span.js';

/** What one HTTP request to the MCP endpoint may reach. */
export interface McpRequestScope {
  request: FastifyRequest;
  reply: FastifyReply;
  key: ApiKey;
  /** The servers it may use: one for `/mcp/{server}`, those of its grant for `/mcp`. */
  servers: McpServer[];
  /** `/mcp/{server}`: tool names unprefixed, resources and prompts passed through. */
  single: boolean;
  /** The gateway session (absent on `initialize`): the upstream sessions it holds. */
  sessionId: string | undefined;
  upstreams: Record<string, UpstreamSessionRef>;
}

/**
 * The gateway as an MCP server for one HTTP request (issue 31), on the SDK's `Server`: the key's
 * tools listed, called and logged; resources and prompts passed through on `/mcp/{server}`. Built
 * afresh per request: everything that lasts (sessions, upstream sessions) is in the shared store.
 */
export function buildGatewayServer(scope: McpRequestScope): Server {
  const { request, key, servers, single } = scope;
  const { mcp } = request.server.gateway;
  const server = new Server(
    { name: single ? `model-gateway/${servers[0]!.name}` : 'model-gateway', version: '1' },
    {
      // listChanged: the GET stream relays the upstreams' notifications (notification-stream.ts).
      capabilities: single ? { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } } : { tools: { listChanged: true } },
      instructions: single ? undefined : 'Tools of several MCP servers, named <server>__<tool>.',
    },
  );

  /** Runs a call on an upstream within this gateway session, keeping the upstream session it ends up with. */
  const onUpstream = async <T>(upstream: McpServer, call: (client: Client) => Promise<T>, traceHeaders?: Readonly<Record<string, string>>): Promise<T> => {
    const ref = scope.upstreams[upstream.name];
    const outcome = await mcp.upstreams.run(upstream, ref, call, traceHeaders);
    if (scope.sessionId && outcome.ref?.sessionId !== ref?.sessionId) {
      if (outcome.ref) scope.upstreams[upstream.name] = outcome.ref;
      else delete scope.upstreams[upstream.name];
      await mcp.sessions.setUpstream(scope.sessionId, upstream.name, outcome.ref);
    }
    return outcome.value;
  };

  const toolsOf = async (upstream: McpServer): Promise<Tool[]> => {
    const tools: Tool[] = [];
    await onUpstream(upstream, async (client) => {
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: upstream.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    });
    mcp.health.toolsSeen(upstream.name, tools.map((tool) => tool.name));
    // Names outside MCP's characters (markup, `javascript:`) are left out, as tools/call refuses them.
    const unsafe = tools.filter((tool) => !isSafeToolName(tool.name));
    if (unsafe.length > 0) request.log.warn({ server: upstream.name, tools: unsafe.slice(0, 10).map((tool) => JSON.stringify(tool.name).slice(0, 200)), count: unsafe.length }, 'MCP server lists tools whose names are outside [A-Za-z0-9_.-]: left out of tools/list');
    return tools.filter((tool) => mayCallTool(key, upstream, tool.name));
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (single) return { tools: await toolsOf(servers[0]!) };
    // One server down leaves the others' tools listed (its health shows why in the console).
    const lists = await Promise.allSettled(servers.map(async (upstream) => (await toolsOf(upstream)).map((tool) => ({ ...tool, name: namespacedTool(upstream.name, tool.name) }))));
    return { tools: lists.flatMap((list) => (list.status === 'fulfilled' ? list.value : [])) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
    const asked = call.params.name;
    const argumentsText = JSON.stringify(call.params.arguments ?? {});
    const record: ToolCallRecord = { server: '', tool: asked, startedAt: Date.now(), status: 200, outcome: 'success', errorCode: null, errorMessage: null, argumentsText, resultText: undefined };
    const target = single ? { server: servers[0]!.name, tool: asked } : splitToolName(asked);
    const upstream = target && servers.find((candidate) => candidate.name === target.server);
    record.server = target?.server ?? '';
    const allowed = target && upstream && mayCallTool(key, upstream, target.tool) ? upstream : undefined;
    const span = request.gw.trace?.startAttempt(toolCallSpanStart({ tool: asked, server: allowed, sessionId: scope.sessionId }));
    // Every outcome is one log entry and ends the span.
    const finish = (final: ToolCallRecord) => {
      recordToolCall(request, final);
      span?.end(toolCallSpanEnd(final));
    };
    if (!target || !allowed) {
      // Nothing reaches the upstream: the tool is outside what tools/list showed this key.
      const message = `Tool '${asked}' is not available to this API key`;
      finish({ ...record, status: 403, outcome: 'denied', errorCode: ERRORS.GW_PERMISSION_DENIED.publicCode, errorMessage: message });
      throw new McpError(ErrorCode.InvalidParams, message);
    }
    await admitToolCall(request, scope.reply, key, record, finish);
    try {
      const progressToken = extra._meta?.progressToken;
      const answered = (await onUpstream(allowed, (client) =>
        client.callTool({ name: target.tool, arguments: call.params.arguments ?? {} }, undefined, {
          timeout: allowed.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          signal: extra.signal,
          // The upstream's progress reaches the client under the client's own token.
          ...(progressToken === undefined
            ? {}
            : { onprogress: (progress) => void extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => undefined) }),
        }),
      // The upstream's work joins the caller's trace.
      span?.headers)) as CallToolResult;
      // Already masked of the server's secrets as it arrived (gateway/mcp/upstream.ts), like every upstream answer.
      const result = answered;
      const resultText = JSON.stringify(result);
      finish({ ...record, outcome: result.isError ? 'tool_error' : 'success', errorCode: result.isError ? 'tool_error' : null, resultText });
      return result;
    } catch (error) {
      const failure = error instanceof UpstreamMcpError ? error : undefined;
      finish({ ...record, status: failure?.status ?? 502, outcome: 'error', errorCode: ERRORS[failure ? catalogueCodeOf(failure.code) : 'GW_UPSTREAM_ERROR'].publicCode, errorMessage: failure?.message ?? 'upstream call failed' });
      throw failure ?? new McpError(ErrorCode.InternalError, `MCP server '${allowed.name}' call failed`);
    }
  });

  if (single) {
    const upstream = servers[0]!;
    const timeout = { timeout: upstream.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS };
    server.setRequestHandler(ListResourcesRequestSchema, (r) => onUpstream(upstream, (client) => client.listResources(r.params, timeout)));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (r) => onUpstream(upstream, (client) => client.listResourceTemplates(r.params, timeout)));
    server.setRequestHandler(ReadResourceRequestSchema, (r) => onUpstream(upstream, (client) => client.readResource(r.params, timeout)));
    server.setRequestHandler(ListPromptsRequestSchema, (r) => onUpstream(upstream, (client) => client.listPrompts(r.params, timeout)));
    server.setRequestHandler(GetPromptRequestSchema, (r) => onUpstream(upstream, (client) => client.getPrompt(r.params, timeout)));
  }
  return server;
}

/**
 * A tool call counts against the key's requests per minute (its own `mcp` counter, tiers' `mcp`
 * or `default` entry) and its max parallel requests, like a model request: the request's slot
 * of the admission gate (plugins/admission-gate.ts), taken on its headers and given back at its end.
 */
async function admitToolCall(request: FastifyRequest, reply: FastifyReply, key: ApiKey, record: ToolCallRecord, finish: (final: ToolCallRecord) => void): Promise<void> {
  const { admission } = request.server;
  const refuse = (message: string): never => {
    finish({ ...record, status: 429, outcome: 'rate_limited', errorCode: ERRORS.GW_RATE_LIMITED.publicCode, errorMessage: message });
    throw new McpError(MCP_ERROR.limited, message);
  };
  const limits = limitsFor(key, 'mcp', request.server.gateway.config.file.tiers);
  if (limits.rpm !== null) {
    const taken = await admission.limiters.take('requests', `${key.id}:mcp`, limits.rpm, 1);
    if (!taken.admitted) refuse(`Rate limit of ${limits.rpm} requests per minute reached on this API key (${key.prefix}…); retry in ${Math.max(1, Math.ceil(taken.state.resetMs / 1000))} s`);
  }
  if (key.maxParallel === null || request.gw.parallelSlot) return;
  try {
    holdParallelSlot(request, reply, key, key.maxParallel);
  } catch (error) {
    if (error instanceof GatewayError) refuse(error.message);
    throw error;
  }
}
