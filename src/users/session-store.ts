import { randomBytes } from 'node:crypto';
import type { Db } from '../db/connect.js';
import type { SessionTable } from '../db/schema.js';
import { digestsEqual, hashSecret } from '../keys/secrets.js';
import { ADMIN_TOKEN_SETTING } from '../keys/bootstrap.js';
import { toUser, type User } from './user-store.js';

/** A session lives this long after its last use... */
export const SESSION_IDLE_MS = 7 * 24 * 3_600_000;
/** ...but never longer than this after sign-in. */
export const SESSION_MAX_MS = 30 * 24 * 3_600_000;
/** Sliding the expiry costs a write, so it is done at most this often per session. */
const SLIDE_EVERY_MS = 3_600_000;

export interface Session {
  tokenHash: string;
  user: User;
  csrfToken: string;
  method: SessionTable['method'];
  expiresAt: number;
}

const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url');

/**
 * Console sessions. The cookie carries a random token; the table holds its SHA-256, so a copy of
 * the database signs nobody in. Each session has its own CSRF token, sent back to the page in the
 * sign-in answer and required on every state-changing request made with the cookie.
 */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async create(user: User, method: SessionTable['method']): Promise<{ token: string; session: Session }> {
    const token = randomToken(32);
    const at = this.now();
    let adminTokenHash: string | null = null;
    if (method === 'admin_token') adminTokenHash = (await this.currentAdminTokenHash()) ?? null;
    const row: SessionTable = {
      token_hash: hashSecret(token),
      user_id: user.id,
      csrf_token: randomToken(24),
      method,
      admin_token_hash: adminTokenHash,
      created_at: at,
      expires_at: at + SESSION_IDLE_MS,
    };
    await this.db.insertInto('sessions').values(row).execute();
    return { token, session: { tokenHash: row.token_hash, user, csrfToken: row.csrf_token, method, expiresAt: row.expires_at } };
  }

  /**
   * The live session behind a cookie token, with its user; undefined when there is none, it has
   * expired, its user is disabled or gone, or (admin-token sessions) the admin token was replaced.
   */
  async find(token: string): Promise<Session | undefined> {
    const tokenHash = hashSecret(token);
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.token_hash', 'sessions.csrf_token', 'sessions.method', 'sessions.admin_token_hash', 'sessions.created_at as session_created_at', 'sessions.expires_at'])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row || !digestsEqual(row.token_hash, tokenHash)) return undefined;
    const at = this.now();
    const expiresAt = Number(row.expires_at);
    if (expiresAt <= at || row.disabled_at !== null) return undefined;
    if (row.method === 'admin_token') {
      const current = await this.currentAdminTokenHash();
      if (!current || !row.admin_token_hash || !digestsEqual(current, row.admin_token_hash)) return undefined;
    }
    const session: Session = { tokenHash, user: toUser(row), csrfToken: row.csrf_token, method: row.method, expiresAt };
    const slid = Math.min(at + SESSION_IDLE_MS, Number(row.session_created_at) + SESSION_MAX_MS);
    if (slid - expiresAt >= SLIDE_EVERY_MS) {
      await this.db.updateTable('sessions').set({ expires_at: slid }).where('token_hash', '=', tokenHash).execute();
      session.expiresAt = slid;
    }
    return session;
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  /** Signs a user out everywhere; also drops expired rows of theirs. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  /** Expired sessions are refused anyway; this keeps the table small (called at sign-in). */
  async deleteExpired(): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<=', this.now()).execute();
  }

  private async currentAdminTokenHash(): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('name', '=', ADMIN_TOKEN_SETTING).executeTakeFirst();
    return row?.value;
  }
}
