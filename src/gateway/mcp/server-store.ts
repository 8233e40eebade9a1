import type { Db } from '../../db/connect.js';
import type { McpServerConfig } from '../../config/schema.js';
import { GatewayError } from '../../errors.js';
import { SecretBox } from '../../keys/secret-box.js';

/** Fields that are credentials: sealed at rest, never returned, never logged. */
const SECRET_FIELDS = ['auth', 'headers'] as const;
type SecretFields = Pick<McpServerConfig, (typeof SECRET_FIELDS)[number]>;

/** Where a server comes from: the configuration file, or the admin API (which wins by name). */
export type McpServerOrigin = 'file' | 'runtime';
export interface McpServer extends McpServerConfig {
  origin: McpServerOrigin;
}

/** How long a read of the table serves lookups: a change made on another instance applies within it. */
const CACHE_MS = 1_000;

/**
 * The upstream MCP servers (issue 31): the file's `mcp_servers` and the `mcp_servers` table (0022),
 * credentials sealed with the instance's SecretBox like a runtime channel's. Every instance reads
 * the table (cached a second), so a server added, changed or removed applies everywhere.
 */
export class McpServerStore {
  private cached: { at: number; servers: Map<string, McpServer>; unreadable: string[] } | undefined;

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox | undefined,
    private readonly file: readonly McpServerConfig[],
    private readonly now: () => number = Date.now,
    /** The link-local guard: a stored server it refuses (stored before the guard, or by an instance that allows it) is not served. */
    private readonly isAllowed: (server: McpServerConfig) => boolean = () => true,
  ) {}

  /** Whether a server of this name comes from the configuration file. */
  isFileServer(name: string): boolean {
    return this.file.some((server) => server.name === name);
  }

  /** Every server, file and runtime merged; `fresh` skips the cache (the admin API after a change). */
  async all(fresh = false): Promise<ReadonlyMap<string, McpServer>> {
    const now = this.now();
    if (!fresh && this.cached && now - this.cached.at < CACHE_MS) return this.cached.servers;
    const servers = new Map<string, McpServer>(this.file.map((server) => [server.name, { ...server, origin: 'file' as const }]));
    const unreadable: string[] = [];
    const rows = await this.db.selectFrom('mcp_servers').selectAll().orderBy('created_at').orderBy('name').execute();
    for (const row of rows) {
      const definition = JSON.parse(row.definition) as McpServerConfig;
      let secrets: SecretFields = {};
      if (row.secrets !== null) {
        try {
          if (!this.box) throw new Error('no key');
          secrets = JSON.parse(this.box.open(row.secrets)) as SecretFields;
        } catch {
          // A server whose credentials this instance cannot open is not served (it would call upstream unauthenticated).
          unreadable.push(row.name);
          servers.delete(row.name);
          continue;
        }
      }
      const server = { ...definition, ...secrets };
      if (!this.isAllowed(server)) {
        servers.delete(row.name);
        continue;
      }
      servers.set(row.name, { ...server, origin: 'runtime' });
    }
    this.cached = { at: now, servers, unreadable };
    return servers;
  }

  /** Names of stored servers whose credentials no key of this instance opens. */
  get unreadable(): readonly string[] {
    return this.cached?.unreadable ?? [];
  }

  async get(name: string, fresh = false): Promise<McpServer | undefined> {
    return (await this.all(fresh)).get(name);
  }

  /** Stores the whole definition (replacing any before); credentials sealed apart. */
  async put(server: McpServerConfig): Promise<void> {
    const clear: Record<string, unknown> = {};
    const secrets: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(server)) {
      if (value === undefined || field === 'origin') continue;
      if ((SECRET_FIELDS as readonly string[]).includes(field)) secrets[field] = value;
      else clear[field] = value;
    }
    const hasSecrets = Object.keys(secrets).length > 0 && !(Object.keys(secrets).length === 1 && (secrets.auth as { type?: string } | undefined)?.type === 'none');
    if (hasSecrets && !this.box) {
      throw new GatewayError('GW_CONFLICT', 'Credentials cannot be stored: set GATEWAY_SECRET_KEY (the same 32-byte key on every instance) to encrypt them at rest, then retry');
    }
    const at = this.now();
    const row = { definition: JSON.stringify(clear), secrets: hasSecrets ? this.box!.seal(JSON.stringify(secrets)) : null, updated_at: at };
    await this.db
      .insertInto('mcp_servers')
      .values({ name: server.name, ...row, created_at: at })
      .onConflict((conflict) => conflict.column('name').doUpdateSet(row))
      .execute();
    this.cached = undefined;
  }

  async remove(name: string): Promise<boolean> {
    const result = await this.db.deleteFrom('mcp_servers').where('name', '=', name).executeTakeFirst();
    this.cached = undefined;
    return Number(result.numDeletedRows) > 0;
  }
}
