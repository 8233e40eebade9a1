/** What the console shows of an upstream MCP server, as this instance saw it. */
export interface McpServerHealth {
  status: 'unknown' | 'ok' | 'failing';
  lastOkAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Tools the last successful `tools/list` found. */
  tools: string[] | null;
}

/** Per-instance health of the upstream MCP servers (like a channel's recent attempts). */
export class McpHealth {
  private readonly byServer = new Map<string, McpServerHealth>();

  constructor(private readonly now: () => number = Date.now) {}

  of(server: string): McpServerHealth {
    return this.byServer.get(server) ?? { status: 'unknown', lastOkAt: null, lastError: null, lastErrorAt: null, tools: null };
  }

  ok(server: string): void {
    this.byServer.set(server, { ...this.of(server), status: 'ok', lastOkAt: this.now() });
  }

  failed(server: string, message: string): void {
    this.byServer.set(server, { ...this.of(server), status: 'failing', lastError: message, lastErrorAt: this.now() });
  }

  toolsSeen(server: string, tools: string[]): void {
    this.byServer.set(server, { ...this.of(server), tools });
  }

  forget(server: string): void {
    this.byServer.delete(server);
  }
}
