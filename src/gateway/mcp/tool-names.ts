import type { ApiKey } from '../../keys/key-store.js';
import type { McpServer } from './server-store.js';

/**
 * On the aggregate `/mcp` a tool is `<server>__<tool>` (issue 31). Server names have no `_`
 * (config/schema.ts), so the first `__` always ends the server's name, whatever the tool's own
 * name holds; both parts stay within MCP's tool-name characters ([A-Za-z0-9_.-]).
 */
export const TOOL_SEPARATOR = '__';

/** MCP's tool-name characters and length (the 2025-11-25 revision): what the gateway publishes. */
const SAFE_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Whether an upstream's tool name is within MCP's characters; others (`<img …>`, `javascript:…`) are neither listed nor called. */
export const isSafeToolName = (name: string): boolean => SAFE_TOOL_NAME.test(name);

export const namespacedTool = (server: string, tool: string): string => `${server}${TOOL_SEPARATOR}${tool}`;

export function splitToolName(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf(TOOL_SEPARATOR);
  if (at <= 0 || at + TOOL_SEPARATOR.length >= name.length) return undefined;
  return { server: name.slice(0, at), tool: name.slice(at + TOOL_SEPARATOR.length) };
}

/**
 * Whether the key's grant reaches the server at all: the whole server (`null`) or at least one of
 * its tools. An empty list (`{a: []}`) reaches nothing: no initialize, resources or prompts either.
 */
export function grantsServer(key: ApiKey, server: string): boolean {
  const grant = key.mcp?.[server];
  return grant !== undefined && Object.hasOwn(key.mcp!, server) && (grant === null || grant.length > 0);
}

/** The servers a key may use (deny by default: a key without an `mcp` grant uses none); enabled ones only. */
export function serversForKey(key: ApiKey, servers: ReadonlyMap<string, McpServer>): McpServer[] {
  const grant = key.mcp;
  if (!grant) return [];
  return Object.keys(grant)
    .filter((name) => grantsServer(key, name))
    .map((name) => servers.get(name))
    .filter((server): server is McpServer => server !== undefined && server.enabled !== false);
}

/**
 * Whether the key may call `tool` on `server`: the server publishes it (its `tools` allow-list)
 * and the key's grant names it (or grants the whole server). `tools/list` and `tools/call` both
 * ask this, so a client sees exactly what it may call.
 */
export function mayCallTool(key: ApiKey, server: McpServer, tool: string): boolean {
  if (server.enabled === false || !isSafeToolName(tool)) return false;
  if (server.tools && !server.tools.includes(tool)) return false;
  const grant = key.mcp?.[server.name];
  if (grant === undefined) return false;
  return grant === null || grant.includes(tool);
}
