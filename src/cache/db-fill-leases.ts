import type { Db } from '../db/connect.js';
import type { FillLeases } from './fill-leases.js';

/** Fill leases in PostgreSQL (`cache_fill_leases`, 0029): a row per id, taken over once expired. */
export class DbFillLeases implements FillLeases {
  constructor(private readonly db: Db) {}

  async claim(id: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const expires_at = now + ttlMs;
    const row = await this.db
      .insertInto('cache_fill_leases')
      .values({ id, holder, expires_at })
      .onConflict((c) => c.column('id').doUpdateSet({ holder, expires_at }).where('cache_fill_leases.expires_at', '<=', now))
      .returning('holder')
      .executeTakeFirst();
    return row !== undefined;
  }

  async held(id: string, now: number): Promise<boolean> {
    const row = await this.db.selectFrom('cache_fill_leases').select('id').where('id', '=', id).where('expires_at', '>', now).executeTakeFirst();
    return row !== undefined;
  }

  async release(id: string, holder: string): Promise<void> {
    await this.db.deleteFrom('cache_fill_leases').where('id', '=', id).where('holder', '=', holder).execute();
  }

  async prune(now: number): Promise<void> {
    await this.db.deleteFrom('cache_fill_leases').where('expires_at', '<=', now).execute();
  }
}
