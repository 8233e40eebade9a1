import { Redis } from 'ioredis';
import type { FileConfig, GatewayConfig } from '../../src/config/schema.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from './services.js';

/** Where two instances keep the response cache: their shared PostgreSQL database, or one Redis. */
export type SharedCacheStore = 'PostgreSQL' | 'Redis';

export interface SharedCacheInstances {
  database: TestDatabase;
  first: TestGateway;
  second: TestGateway;
  /** Stops both, drops the database and deletes the Redis keys under the cache's prefix. */
  stop(): Promise<void>;
}

/**
 * Two gateway instances on one new PostgreSQL database (the keys they both accept), with the
 * response cache in that database or in Redis under `file.cache.redis_prefix`.
 */
export async function startSharedCacheInstances(store: SharedCacheStore, file: FileConfig): Promise<SharedCacheInstances> {
  const database = await createTestDatabase();
  const env: Partial<GatewayConfig> = store === 'Redis' ? { databaseUrl: database.url, redisUrl: TEST_REDIS_URL, cacheStore: 'redis' } : { databaseUrl: database.url };
  const first = await startTestGateway({ file, env });
  const second = await startTestGateway({ file, env });
  return {
    database,
    first,
    second,
    async stop() {
      await first.stop();
      await second.stop();
      await database.drop();
      const prefix = file.cache?.redis_prefix;
      if (store !== 'Redis' || !prefix) return;
      const redis = new Redis(TEST_REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
