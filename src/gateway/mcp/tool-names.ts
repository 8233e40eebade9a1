import type { ApiKey } from '../../keys/key-store.js';
import type { McpServer } from './server-store.js';

/**
 * On the aggregate `/mcp` a tool is `<server>__<tool>` (issue 31). Server names have no `_`
 * (config/schema.ts), so the first `__` always ends the server's name, whatever the tool's own
 * name holds; both parts stay within MCP's tool-name characters ([A-Za-z0-9_.-]).
 */
export const TOOL_SEPARATOR = '__';

export const namespacedTool = (server: string, tool: string): string => `${server}${TOOL_SEPARATOR}${tool}`;

export function splitToolName(name: string): { server: string; tool: string } | undefined {
  const at = name.indexOf(TOOL_SEPARATOR);
  if (at <= 0 || at + TOOL_SEPARATOR.length >= name.length) return undefined;
  return { server: name.slice(0, at), tool: name.slice(at + TOOL_SEPARATOR.length) };
}

/** The servers a key may use (deny by default: a key without an `mcp` grant uses none); enabled ones only. */
export function serversForKey(key: ApiKey, servers: ReadonlyMap<string, McpServer>): McpServer[] {
  const grant = key.mcp;
  if (!grant) return [];
  return Object.keys(grant)
    .map((name) => servers.get(name))
    .filter((server): server is McpServer => server !== undefined && server.enabled !== false);
}

/**
 * Whether the key may call `tool` on `server`: the server publishes it (its `tools` allow-list)
 * and the key's grant names it (or grants the whole server). `tools/list` and `tools/call` both
 * ask this, so a client sees exactly what it may call.
 */
export function mayCallTool(key: ApiKey, server: McpServer, tool: string): boolean {
  if (server.enabled === false) return false;
  if (server.tools && !server.tools.includes(tool)) return false;
  const grant = key.mcp?.[server.name];
  if (grant === undefined) return false;
  return grant === null || grant.includes(tool);
}
