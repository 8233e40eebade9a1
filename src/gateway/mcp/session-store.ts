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

/** A session unused this long is over (GATEWAY_MCP_SESSION_IDLE_MS; the client re-initializes on the 404, as the spec asks). */
export const DEFAULT_MCP_SESSION_IDLE_MS = 30 * 60_000;
/** Sessions one key holds at once (GATEWAY_MCP_SESSIONS_PER_KEY): each holds a session on every upstream it uses. */
export const DEFAULT_MCP_SESSIONS_PER_KEY = 32;
/** `used_at` is written at most this often per session (or a quarter of the idle time): one write per call would be most of an MCP call's cost. */
const TOUCH_EVERY_MS = 60_000;
/** Idle sessions ended per sweep. */
const SWEEP_BATCH = 500;

export interface McpSessionSettings {
  perKey?: number | undefined;
  idleMs?: number | undefined;
  /** Told of each session that ended here without the client's DELETE (idle, over its key's cap), once. */
  onEnded?: (session: McpSession) => void;
}

/**
 * Client sessions with the gateway (issue 31), in the shared store (`mcp_sessions`, 0022) rather
 * than in memory: a session started on one instance continues on any other, and the upstream
 * sessions it opened (their `Mcp-Session-Id`s) are reused wherever the next request lands.
 */
export class McpSessionStore {
  readonly idleMs: number;
  readonly perKey: number;
  private readonly touchEveryMs: number;

  constructor(
    private readonly db: Db,
    private readonly settings: McpSessionSettings = {},
    private readonly now: () => number = Date.now,
  ) {
    this.idleMs = settings.idleMs || DEFAULT_MCP_SESSION_IDLE_MS;
    this.perKey = settings.perKey || DEFAULT_MCP_SESSIONS_PER_KEY;
    this.touchEveryMs = Math.min(TOUCH_EVERY_MS, Math.floor(this.idleMs / 4));
  }

  /** A new session id: 32 random bytes, base64url (within the spec's visible ASCII). */
  static newId(): string {
    return `mcps_${randomBytes(32).toString('base64url')}`;
  }

  /**
   * Stores a new session; past the key's cap its least recently used sessions end (a client that
   * never sends DELETE, or one key opening thousands, holds at most `perKey`). Returns those ended.
   */
  async create(id: string, keyId: string, scope: string, upstreams: Record<string, UpstreamSessionRef> = {}): Promise<McpSession[]> {
    const at = this.now();
    await this.db.insertInto('mcp_sessions').values({ id, key_id: keyId, scope, upstreams: JSON.stringify(upstreams), created_at: at, used_at: at }).execute();
    const older = await this.db
      .selectFrom('mcp_sessions')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('id', '!=', id)
      .orderBy('used_at', 'desc')
      .orderBy('created_at', 'desc')
      .execute();
    const ended: McpSession[] = [];
    for (const row of older.slice(this.perKey - 1)) {
      if (await this.end(row)) ended.push(toSession(row));
    }
    return ended;
  }

  /** Ends the sessions idle past `idleMs` (the ones no client asks for again); returns how many. */
  async sweep(): Promise<number> {
    const rows = await this.db.selectFrom('mcp_sessions').selectAll().where('used_at', '<', this.now() - this.idleMs).limit(SWEEP_BATCH).execute();
    let ended = 0;
    for (const row of rows) if (await this.end(row)) ended++;
    return ended;
  }

  /** Removes one stored session and tells `onEnded`, unless another instance ended it first. */
  private async end(row: SessionRow): Promise<boolean> {
    if (!(await this.remove(row.id))) return false;
    this.settings.onEnded?.(toSession(row));
    return true;
  }

  /** The live session of this id, or undefined (unknown, ended or idle too long). */
  async find(id: string): Promise<McpSession | undefined> {
    const row = await this.db.selectFrom('mcp_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const usedAt = Number(row.used_at);
    const now = this.now();
    if (now - usedAt > this.idleMs) {
      await this.end(row);
      return undefined;
    }
    if (now - usedAt > this.touchEveryMs) await this.db.updateTable('mcp_sessions').set({ used_at: now }).where('id', '=', id).execute();
    return toSession(row);
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

interface SessionRow {
  id: string;
  key_id: string;
  scope: string;
  upstreams: string;
}

const toSession = (row: SessionRow): McpSession => ({ id: row.id, keyId: row.key_id, scope: row.scope, upstreams: JSON.parse(row.upstreams) as Record<string, UpstreamSessionRef> });
