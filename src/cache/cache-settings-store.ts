import type { Db } from '../db/connect.js';
import type { CacheSwitch } from './cache-policy.js';

/** One admin API switch as stored: `*` for the global one, else a model id. */
export type StoredCacheSwitch = { target: string } & CacheSwitch;

/**
 * The `cache_settings` table: the admin API's cache switches, shared by every instance (each reads
 * them again on its sweep, so a change made elsewhere lands within one interval).
 */
export class CacheSettingsStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<StoredCacheSwitch[]> {
    const rows = await this.db.selectFrom('cache_settings').selectAll().execute();
    return rows.map((r) => ({
      target: r.target,
      enabled: Number(r.enabled) === 1,
      ttlS: r.ttl_s === null ? null : Number(r.ttl_s),
      hitCostFraction: r.hit_cost_fraction === null || r.hit_cost_fraction === undefined ? null : Number(r.hit_cost_fraction),
      mode: r.mode === 'exact' || r.mode === 'semantic' ? r.mode : null,
    }));
  }

  /** Sets or (with null) removes the switch for `target`. */
  async set(target: string, value: CacheSwitch | null, now: number): Promise<void> {
    if (value === null) {
      await this.db.deleteFrom('cache_settings').where('target', '=', target).execute();
      return;
    }
    const row = { target, enabled: value.enabled ? 1 : 0, ttl_s: value.ttlS, hit_cost_fraction: value.hitCostFraction ?? null, mode: value.mode ?? null, updated_at: now };
    const { target: _target, ...changed } = row;
    await this.db.insertInto('cache_settings').values(row).onConflict((c) => c.column('target').doUpdateSet(changed)).execute();
  }
}
