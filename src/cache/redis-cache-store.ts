import type { Redis } from 'ioredis';
import type { CacheEntry, CacheStore, SharedCacheParts } from './cache-store.js';
import { RedisFillLeases } from './redis-fill-leases.js';
import { RedisSemanticQuestions } from './redis-semantic-questions.js';
import { bytesToShed } from './tenant-shares.js';

/**
 * Keys under the prefix: `e:<id>` the entry as JSON (Redis expires it at its TTL), and the indexes
 * the background sweep and purges read: `exp` (ids by expiry), `age` (ids by creation), `idx`
 * (`scope \0 model \0 id`, lexically, for purges by scope and model), `meta` (id -> `bytes \0
 * scope \0 model`), `total` (bytes stored), and per tenant (cache/tenant-shares.ts, issue 44)
 * `ta:<tenant>` (its ids by creation) and `tb` (tenant -> bytes), for the size cap. The scripts
 * keep them in step; an entry stored before the tenant indexes existed is in none of them.
 */
const REMOVE_ONE = `
local function remove_one(prefix, id)
  local meta = redis.call('HGET', prefix .. 'meta', id)
  if not meta then return 0 end
  local bytes, scope, model = string.match(meta, '^(%d+)%z(.-)%z(.*)$')
  redis.call('DEL', prefix .. 'e:' .. id)
  redis.call('ZREM', prefix .. 'exp', id)
  redis.call('ZREM', prefix .. 'age', id)
  redis.call('ZREM', prefix .. 'idx', scope .. '\\0' .. model .. '\\0' .. id)
  redis.call('HDEL', prefix .. 'meta', id)
  redis.call('DECRBY', prefix .. 'total', bytes)
  local tenant = string.match(scope, '^[^/]*')
  if redis.call('ZREM', prefix .. 'ta:' .. tenant, id) == 1 and redis.call('HINCRBY', prefix .. 'tb', tenant, '-' .. bytes) <= 0 then
    redis.call('HDEL', prefix .. 'tb', tenant)
  end
  return 1
end`;

/** ARGV: the ids to remove. */
const REMOVE = `${REMOVE_ONE}
local removed = 0
for i = 1, #ARGV do removed = removed + remove_one(KEYS[1], ARGV[i]) end
return removed`;

/** ARGV: id, scope, model, bytes, created_at, expires_at, TTL in ms, the entry as JSON. An entry of the same id is replaced. */
const PUT = `${REMOVE_ONE}
local prefix, id, scope, model, bytes = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
remove_one(prefix, id)
redis.call('SET', prefix .. 'e:' .. id, ARGV[8], 'PX', ARGV[7])
redis.call('ZADD', prefix .. 'exp', ARGV[6], id)
redis.call('ZADD', prefix .. 'age', ARGV[5], id)
redis.call('ZADD', prefix .. 'idx', 0, scope .. '\\0' .. model .. '\\0' .. id)
redis.call('HSET', prefix .. 'meta', id, bytes .. '\\0' .. scope .. '\\0' .. model)
redis.call('INCRBY', prefix .. 'total', bytes)
local tenant = string.match(scope, '^[^/]*')
redis.call('ZADD', prefix .. 'ta:' .. tenant, ARGV[5], id)
redis.call('HINCRBY', prefix .. 'tb', tenant, bytes)
return 1`;

const BATCH = 200;
/** Oldest entries of one tenant read per step past the cap. */
const EVICT_STEP = 20;
/** Rounds of per-tenant eviction one sweep makes at most (other instances write meanwhile). */
const SHARE_ROUNDS = 3;
/** The pseudo-tenant of entries stored before the tenant indexes (no scope has a NUL). */
const UNTRACKED = '\0untracked';

type ScriptedRedis = Redis & {
  gwCacheRemove(prefix: string, ...ids: string[]): Promise<number>;
  gwCachePut(prefix: string, ...args: Array<string | number>): Promise<number>;
};

/**
 * The response cache in Redis, for several instances that share one Redis (issue 32). An entry
 * expires by Redis's own TTL; the background sweep drops the expired entries' index rows and keeps
 * the size cap, the oldest entries of the tenants holding the most first (issue 44). Redis's own
 * eviction (maxmemory) may drop an entry earlier, whoever's it is: a miss.
 */
export class RedisCacheStore implements CacheStore {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('gwCacheRemove', { numberOfKeys: 1, lua: REMOVE });
    redis.defineCommand('gwCachePut', { numberOfKeys: 1, lua: PUT });
    this.redis = redis as ScriptedRedis;
  }

  async get(id: string, scope: string, now: number): Promise<CacheEntry | undefined> {
    const text = await this.redis.get(`${this.prefix}e:${id}`);
    if (text === null) return undefined;
    const entry = JSON.parse(text) as CacheEntry;
    return entry.scope === scope && entry.expires_at > now ? entry : undefined;
  }

  async put(entry: CacheEntry): Promise<void> {
    const ttlMs = Math.max(1, entry.expires_at - entry.created_at);
    await this.redis.gwCachePut(this.prefix, entry.id, entry.scope, entry.model, entry.bytes, entry.created_at, entry.expires_at, ttlMs, JSON.stringify(entry));
  }

  async purge(filter: { scope?: string | undefined; model?: string | undefined }): Promise<number> {
    const ids: string[] = [];
    if (filter.scope === undefined) {
      const members = await this.redis.zrange(`${this.prefix}idx`, '0', '-1');
      for (const member of members) if (filter.model === undefined || member.split('\0')[1] === filter.model) ids.push(member.split('\0')[2]!);
    } else {
      // The scope's own entries and its sub-namespaces' (`scope/ns:…`), each a lexical range.
      for (const start of [`${filter.scope}\0`, `${filter.scope}/`]) {
        const members = await this.redis.zrangebylex(`${this.prefix}idx`, `[${start}`, `(${start.slice(0, -1)}${String.fromCharCode(start.charCodeAt(start.length - 1) + 1)}`);
        for (const member of members) {
          const [, model, id] = member.split('\0') as [string, string, string];
          if (filter.model === undefined || model === filter.model) ids.push(id);
        }
      }
    }
    return this.remove(ids);
  }

  async sweep(now: number, maxBytes: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const expired = await this.redis.zrangebyscore(`${this.prefix}exp`, '-inf', now, 'LIMIT', 0, BATCH);
      if (expired.length === 0) break;
      removed += await this.remove(expired);
    }
    let total = await this.totalBytes();
    for (let round = 0; round < SHARE_ROUNDS && total > maxBytes; round++) {
      const held = new Map(Object.entries(await this.redis.hgetall(`${this.prefix}tb`)).map(([tenant, bytes]) => [tenant, Number(bytes)] as const));
      // Entries from before the tenant indexes count as one more tenant, evicted oldest first overall.
      const untracked = total - [...held.values()].reduce((sum, bytes) => sum + bytes, 0);
      if (untracked > 0) held.set(UNTRACKED, untracked);
      const shed = bytesToShed(held, maxBytes);
      if (shed.size === 0) break;
      for (const [tenant, bytes] of shed) removed += await this.removeOldest(tenant === UNTRACKED ? 'age' : `ta:${tenant}`, bytes);
      total = await this.totalBytes();
    }
    return removed;
  }

  /** Removes the oldest ids of one index (a tenant's, or `age` for all) until at least `bytes` are gone. */
  private async removeOldest(index: string, bytes: number): Promise<number> {
    let left = bytes;
    let removed = 0;
    while (left > 0) {
      const oldest = await this.redis.zrange(`${this.prefix}${index}`, '0', String(EVICT_STEP - 1));
      if (oldest.length === 0) break;
      const metas = await this.redis.hmget(`${this.prefix}meta`, ...oldest);
      // An id without its meta row has nothing left to remove but itself (it would stall the loop).
      const orphans = oldest.filter((_, i) => metas[i] === null);
      if (orphans.length > 0) await this.redis.zrem(`${this.prefix}${index}`, ...orphans);
      const victims: string[] = [];
      for (const [i, id] of oldest.entries()) {
        if (metas[i] === null) continue;
        if (left <= 0) break;
        victims.push(id);
        left -= Number.parseInt(metas[i] ?? '0', 10) || 0;
      }
      removed += await this.remove(victims);
    }
    return removed;
  }

  async totalBytes(): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}total`)) ?? 0);
  }

  shared(bucketLimit: number): SharedCacheParts {
    return { questions: new RedisSemanticQuestions(this.redis, this.prefix, bucketLimit), leases: new RedisFillLeases(this.redis, this.prefix) };
  }

  private async remove(ids: readonly string[]): Promise<number> {
    let removed = 0;
    for (let i = 0; i < ids.length; i += BATCH) removed += await this.redis.gwCacheRemove(this.prefix, ...ids.slice(i, i + BATCH));
    return removed;
  }
}
