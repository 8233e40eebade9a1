import { createRequire } from 'node:module';
import type { RateLimiterClusterMaster, RateLimiterCluster, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

const require = createRequire(import.meta.url);

/**
 * rate-limiter-flexible's index loads every store it knows (Mongo, MySQL, DynamoDB, Etcd…). The
 * gateway uses three, each loaded from its own module when first constructed (issue 24): the
 * embedded default needs only the in-memory one. The package has no `exports` map, so these
 * paths are public; types still come from the package.
 */
export const memoryLimiter = (): typeof RateLimiterMemory => require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof RateLimiterMemory;
export const redisLimiter = (): typeof RateLimiterRedis => require('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof RateLimiterRedis;

interface ClusterModule {
  RateLimiterCluster: typeof RateLimiterCluster;
  RateLimiterClusterMaster: typeof RateLimiterClusterMaster;
}
/** GATEWAY_WORKERS without Redis: workers ask the primary, which keeps the counters. */
export const clusterLimiters = (): ClusterModule => require('rate-limiter-flexible/lib/RateLimiterCluster.js') as ClusterModule;
