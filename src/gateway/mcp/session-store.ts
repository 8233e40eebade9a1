import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connect.js';

/** The upstream session one gateway session holds on one server, as the upstream named it. */
export interface UpstreamSessionRef {
  sessionId: string;
  protocolVersion: string;
}

export interface McpSession {
  id: string;
  keyId: string;
  /** The server of `/mcp/{server}`, or `*` for the aggregate `/mcp`. */
  scope: string;
  upstreams: Record<string, UpstreamSessionRef>;
}

/** A session unused this long is over (the client re-initializes on the 404, as the spec asks). */
const IDLE_MS = 24 * 60 * 60_000;
/** `used_at` is written at most this often per session: one write per call would be most of an MCP call's cost. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Client sessions with the gateway (issue 31), in the shared store (`mcp_sessions`, 0022) rather
 * than in memory: a session started on one instance continues on any other, and the upstream
 * sessions it opened (their `Mcp-Session-Id`s) are reused wherever the next request lands.
 */
export class McpSessionStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session id: 32 random bytes, base64url (within the spec's visible ASCII). */
  static newId(): string {
    return `mcps_${randomBytes(32).toString('base64url')}`;
  }

  async create(id: string, keyId: string, scope: string, upstreams: Record<string, UpstreamSessionRef> = {}): Promise<void> {
    const at = this.now();
    await this.db.insertInto('mcp_sessions').values({ id, key_id: keyId, scope, upstreams: JSON.stringify(upstreams), created_at: at, used_at: at }).execute();
  }

  /** The live session of this id, or undefined (unknown, ended or idle too long). */
  async find(id: string): Promise<McpSession | undefined> {
    const row = await this.db.selectFrom('mcp_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const usedAt = Number(row.used_at);
    const now = this.now();
    if (now - usedAt > IDLE_MS) {
      await this.remove(id);
      return undefined;
    }
    if (now - usedAt > TOUCH_EVERY_MS) await this.db.updateTable('mcp_sessions').set({ used_at: now }).where('id', '=', id).execute();
    return { id: row.id, keyId: row.key_id, scope: row.scope, upstreams: JSON.parse(row.upstreams) as Record<string, UpstreamSessionRef> };
  }

  /** Records (or, with undefined, forgets) the upstream session a gateway session holds on `server`. */
  async setUpstream(id: string, server: string, ref: UpstreamSessionRef | undefined): Promise<void> {
    const row = await this.db.selectFrom('mcp_sessions').select('upstreams').where('id', '=', id).executeTakeFirst();
    if (!row) return;
    const upstreams = JSON.parse(row.upstreams) as Record<string, UpstreamSessionRef>;
    if (ref) upstreams[server] = ref;
    else delete upstreams[server];
    await this.db.updateTable('mcp_sessions').set({ upstreams: JSON.stringify(upstreams), used_at: this.now() }).where('id', '=', id).execute();
  }

  async remove(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('mcp_sessions').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
