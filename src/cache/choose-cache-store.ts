import type { Redis } from 'ioredis';
import type { GatewayConfig } from '../config/schema.js';
import type { CacheStore } from './cache-store.js';
import { RedisCacheStore } from './redis-cache-store.js';

const DEFAULT_REDIS_PREFIX = 'gw:cache:';

/**
 * The Redis store when GATEWAY_CACHE_STORE (or the file's `cache.store`) says `redis`; undefined
 * for the database's own table. Asking for Redis without REDIS_URL stops the boot with a clear line.
 */
export function chooseCacheStore(config: Pick<GatewayConfig, 'cacheStore' | 'file' | 'redisUrl'>, redis: Redis | undefined): CacheStore | undefined {
  const kind = config.cacheStore ?? config.file.cache?.store ?? 'database';
  if (kind === 'database') return undefined;
  if (!redis) throw new Error('The response cache is set to the Redis store (GATEWAY_CACHE_STORE or cache.store), but REDIS_URL is not set');
  return new RedisCacheStore(redis, config.file.cache?.redis_prefix ?? DEFAULT_REDIS_PREFIX);
}
