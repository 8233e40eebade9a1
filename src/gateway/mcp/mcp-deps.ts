import type { McpHealth } from './health.js';
import type { McpServerStore } from './server-store.js';
import type { McpSessionStore } from './session-store.js';
import type { McpUpstreams } from './upstream.js';

/** The MCP gateway's parts (issue 31), built once in main.ts. */
export interface McpDeps {
  servers: McpServerStore;
  sessions: McpSessionStore;
  upstreams: McpUpstreams;
  health: McpHealth;
}
