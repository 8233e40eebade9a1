import cluster from 'node:cluster';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { clusterLimiters, memoryLimiter, redisLimiter } from '../ratelimit/flexible.js';

/** Failed sign-ins allowed per IP address and per account in each window. */
export const SIGN_IN_FAILURES_ALLOWED = 10;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/**
 * Counts failed sign-ins per client IP and per account (the email, or the admin token as one
 * account). Past the limit on either, sign-in is refused without checking the password until the
 * window ends. Shared through Redis when the gateway has one, so instances count together.
 */
export class SignInLimiter {
  private readonly byIp: RateLimiterAbstract;
  private readonly byAccount: RateLimiterAbstract;

  constructor(redis: Redis | undefined, keyPrefix = 'gw:signin') {
    const make = (kind: string): RateLimiterAbstract => {
      const options = { keyPrefix: `${keyPrefix}:${kind}`, points: SIGN_IN_FAILURES_ALLOWED, duration: SIGN_IN_WINDOW_SECONDS };
      if (redis) return new (redisLimiter())({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new (memoryLimiter())(options) });
      return cluster.isWorker ? new (clusterLimiters().RateLimiterCluster)({ ...options, timeoutMs: 1000 }) : new (memoryLimiter())(options);
    };
    this.byIp = make('ip');
    this.byAccount = make('account');
  }

  /** Seconds to wait when either counter is used up; undefined when a sign-in may be tried. */
  async blockedFor(ip: string, account: string): Promise<number | undefined> {
    const [ipState, accountState] = await Promise.all([this.byIp.get(ip), this.byAccount.get(account)]);
    const waits = [ipState, accountState].filter((s): s is RateLimiterRes => s !== null && s.consumedPoints >= SIGN_IN_FAILURES_ALLOWED).map((s) => s.msBeforeNext);
    return waits.length === 0 ? undefined : Math.max(1, Math.ceil(Math.max(...waits) / 1000));
  }

  async failed(ip: string, account: string): Promise<void> {
    // consume() rejects once over the limit; the count is what matters here, not the verdict.
    await Promise.all([this.byIp.consume(ip).catch(() => undefined), this.byAccount.consume(account).catch(() => undefined)]);
  }

  /** A correct password clears the account's count (not the IP's: one good account must not launder guesses at others). */
  async succeeded(account: string): Promise<void> {
    await this.byAccount.delete(account).catch(() => undefined);
  }
}
