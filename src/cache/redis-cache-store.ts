import type { Redis } from 'ioredis';
import type { CacheEntry, CacheStore, SharedCacheParts } from './cache-store.js';
import { RedisFillLeases } from './redis-fill-leases.js';
import { RedisSemanticQuestions } from './redis-semantic-questions.js';

/**
 * Keys under the prefix: `e:<id>` the entry as JSON (Redis expires it at its TTL), and the indexes
 * the background sweep and purges read: `exp` (ids by expiry), `age` (ids by creation, for the
 * size cap), `idx` (`scope \0 model \0 id`, lexically, for purges by scope and model), `meta`
 * (id -> `bytes \0 scope \0 model`) and `total` (bytes stored). The scripts keep them in step.
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
return 1`;

const BATCH = 200;
/** Oldest entries removed per step past the cap, before the total is read again. */
const EVICT_STEP = 20;

type ScriptedRedis = Redis & {
  gwCacheRemove(prefix: string, ...ids: string[]): Promise<number>;
  gwCachePut(prefix: string, ...args: Array<string | number>): Promise<number>;
};

/**
 * The response cache in Redis, for several instances that share one Redis (issue 32). An entry
 * expires by Redis's own TTL; the background sweep drops the expired entries' index rows and keeps
 * the size cap, oldest first. Redis's own eviction (maxmemory) may drop an entry earlier: a miss.
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
    while (total > maxBytes) {
      const oldest = await this.redis.zrange(`${this.prefix}age`, '0', String(EVICT_STEP - 1));
      if (oldest.length === 0) break;
      const metas = await this.redis.hmget(`${this.prefix}meta`, ...oldest);
      // An id without its meta row has nothing left to remove but itself (it would stall the loop).
      const orphans = oldest.filter((_, i) => metas[i] === null);
      if (orphans.length > 0) await this.redis.zrem(`${this.prefix}age`, ...orphans);
      const victims: string[] = [];
      for (const [i, id] of oldest.entries()) {
        if (metas[i] === null) continue;
        if (total <= maxBytes) break;
        victims.push(id);
        total -= Number.parseInt(metas[i] ?? '0', 10) || 0;
      }
      removed += await this.remove(victims);
      total = await this.totalBytes();
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
