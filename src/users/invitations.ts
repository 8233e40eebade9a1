import { randomBytes } from 'node:crypto';
import type { Db } from '../db/connect.js';
import { hashSecret } from '../keys/secrets.js';

/** An invitation link works this long, once. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

/** Invitation links: a random token, stored as its SHA-256, single use, expiring after 7 days. */
export class Invitations {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh invitation for the user; earlier unused ones stop working. */
  async create(userId: string): Promise<{ token: string; expiresAt: number }> {
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    await this.db.deleteFrom('invitations').where('user_id', '=', userId).execute();
    await this.db.insertInto('invitations').values({ token_hash: hashSecret(token), user_id: userId, created_at: at, expires_at: at + INVITATION_TTL_MS, used_at: null }).execute();
    return { token, expiresAt: at + INVITATION_TTL_MS };
  }

  /**
   * Uses up an invitation; returns its user id, or undefined when the token is unknown, used or
   * expired. One conditional UPDATE, so two tabs accepting at once cannot both succeed.
   */
  async consume(token: string): Promise<string | undefined> {
    const tokenHash = hashSecret(token);
    const at = this.now();
    const result = await this.db
      .updateTable('invitations')
      .set({ used_at: at })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', at)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    const row = await this.db.selectFrom('invitations').select('user_id').where('token_hash', '=', tokenHash).executeTakeFirst();
    return row?.user_id;
  }
}
