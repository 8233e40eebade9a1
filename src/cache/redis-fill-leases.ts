import type { Redis } from 'ioredis';
import type { FillLeases } from './fill-leases.js';

/** Deletes the lease only when it is still the caller's. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type ScriptedRedis = Redis & { gwCacheLeaseRelease(key: string, holder: string): Promise<number> };

/** Fill leases in Redis: `<prefix>lease:<id>`, set with NX and PX, so Redis expires a crashed leader's. */
export class RedisFillLeases implements FillLeases {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('gwCacheLeaseRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as ScriptedRedis;
  }

  async claim(id: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keyOf(id), holder, 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK';
  }

  async held(id: string): Promise<boolean> {
    return (await this.redis.exists(this.keyOf(id))) === 1;
  }

  async release(id: string, holder: string): Promise<void> {
    await this.redis.gwCacheLeaseRelease(this.keyOf(id), holder);
  }

  async prune(): Promise<void> {}

  private keyOf(id: string): string {
    return `${this.prefix}lease:${id}`;
  }
}
