import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

/** ioredis loads when `REDIS_URL` is set: the embedded default never pays for it. */
export function connectRedis(url: string, options: RedisOptions): Redis {
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  return new RedisClient(url, options);
}
