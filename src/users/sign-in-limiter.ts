import cluster from 'node:cluster';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { clusterLimiters, memoryLimiter, redisLimiter } from '../ratelimit/flexible.js';

/** The account a failed admin-token sign-in counts against (there is one admin token). */
export const ADMIN_TOKEN_ACCOUNT = 'admin-token';

declare module 'fastify' {
  interface FastifyInstance {
    /** One per app: console sign-ins and the admin API's bearer token count on the same counters. */
    signInLimiter: SignInLimiter;
  }
}

/** Failed sign-ins allowed per client address (any accounts) in each window. */
export const SIGN_IN_FAILURES_ALLOWED = 10;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/**
 * The backoff of one address on one account: a few tries a minute, then the quarter hour's, then
 * the day's; each step waits longer (a minute, 15 minutes, the rest of the day).
 */
const PAIR_STEPS = [
  { name: 'pair-minute', points: 5, duration: 60 },
  { name: 'pair-quarter', points: SIGN_IN_FAILURES_ALLOWED, duration: SIGN_IN_WINDOW_SECONDS },
  { name: 'pair-day', points: 20, duration: 24 * 3600 },
] as const;

/** Failures on one account, from all addresses, past which it counts as under attack. */
const ACCOUNT_UNDER_ATTACK = SIGN_IN_FAILURES_ALLOWED;

/** An attempt taken from the counters; the caller reports how the credential was judged. */
export interface SignInAttempt {
  failed(): Promise<void>;
  succeeded(): Promise<void>;
}

export type SignInTake = { attempt: SignInAttempt } | { retryAfterSeconds: number };

/**
 * Sign-in limits (issue 23 items 4 and 7). Counted per client address and per (address, account),
 * never per account alone: a stranger's wrong guesses must not lock the right credential out of an
 * address that has not failed (ten wrong admin tokens used to make the operator's own sign-in
 * 429 everywhere for 15 minutes). An account under attack from many addresses (ten failures in 15
 * minutes) makes every address that has failed on it wait out the window, so a distributed guesser
 * gets one try per address, while addresses that never failed sign in as usual.
 *
 * The attempt is taken from the counters before the credential is verified (`take`), so 60
 * parallel tries from one address verify no more than the counters allow; a correct credential
 * gives its attempt back. Shared through Redis when the gateway has one.
 */
export class SignInLimiter {
  private readonly byAddress: RateLimiterAbstract;
  private readonly byPair: RateLimiterAbstract[];
  private readonly accountFailures: RateLimiterAbstract;

  constructor(redis: Redis | undefined, keyPrefix = 'gw:signin') {
    const make = (kind: string, points: number, duration: number): RateLimiterAbstract => {
      const options = { keyPrefix: `${keyPrefix}:${kind}`, points, duration };
      if (redis) return new (redisLimiter())({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new (memoryLimiter())(options) });
      return cluster.isWorker ? new (clusterLimiters().RateLimiterCluster)({ ...options, timeoutMs: 1000 }) : new (memoryLimiter())(options);
    };
    this.byAddress = make('ip', SIGN_IN_FAILURES_ALLOWED, SIGN_IN_WINDOW_SECONDS);
    this.byPair = PAIR_STEPS.map((step) => make(step.name, step.points, step.duration));
    this.accountFailures = make('account-failures', Number.MAX_SAFE_INTEGER, SIGN_IN_WINDOW_SECONDS);
  }

  /** Takes one attempt for `account` from `address`, or says how long to wait. */
  async take(address: string, account: string): Promise<SignInTake> {
    const pair = pairKey(address, account);
    const [underAttack, tried] = await Promise.all([this.accountFailures.get(account), this.byPair[1]!.get(pair)]);
    if (underAttack && underAttack.consumedPoints >= ACCOUNT_UNDER_ATTACK && tried && tried.consumedPoints > 0) {
      return { retryAfterSeconds: seconds(underAttack.msBeforeNext) };
    }
    const counters: Array<[RateLimiterAbstract, string]> = [[this.byAddress, address], ...this.byPair.map((limiter): [RateLimiterAbstract, string] => [limiter, pair])];
    const taken = await Promise.allSettled(counters.map(([limiter, key]) => limiter.consume(key)));
    const refusals = taken.filter((t): t is PromiseRejectedResult => t.status === 'rejected').map((t) => t.reason as RateLimiterRes | Error);
    if (refusals.length > 0) {
      // A refused try is not verified, so it is not counted: every counter gets its point back.
      await giveBack(counters);
      const waits = refusals.map((r) => (r instanceof Error ? 1000 : r.msBeforeNext));
      return { retryAfterSeconds: seconds(Math.max(...waits)) };
    }
    return {
      attempt: {
        failed: async () => {
          await this.accountFailures.consume(account).catch(() => undefined);
        },
        // A correct credential is not a failure: the address's point comes back and the pair starts afresh.
        succeeded: async () => {
          await Promise.all([this.byAddress.reward(address, 1).catch(() => undefined), ...this.byPair.map((limiter) => limiter.delete(pair).catch(() => undefined))]);
        },
      },
    };
  }

  /**
   * For a credential that costs nothing to check and cannot be guessed (the admin token: 256
   * bits), judged before counting: a wrong one counts as a failed sign-in and is refused past the
   * limits; the right one always passes (issue 34: five wrong bearers from a shared address, an API
   * key pasted in the wrong place, used to lock the operator out; throttling the right token
   * protects nothing). Seconds to wait, or undefined when the verdict stands.
   */
  async judge(address: string, account: string, ok: boolean): Promise<number | undefined> {
    if (ok) return undefined;
    const pair = pairKey(address, account);
    const counted = await Promise.allSettled([this.byAddress.consume(address), ...this.byPair.map((limiter) => limiter.consume(pair)), this.accountFailures.consume(account)]);
    const waits = counted.flatMap((c) => (c.status === 'rejected' ? [c.reason instanceof Error ? 1000 : (c.reason as RateLimiterRes).msBeforeNext] : []));
    return waits.length > 0 ? seconds(Math.max(...waits)) : undefined;
  }
}

const pairKey = (address: string, account: string): string => `${address}|${account}`;
const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

function giveBack(counters: ReadonlyArray<[RateLimiterAbstract, string]>): Promise<unknown> {
  return Promise.all(counters.map(([limiter, key]) => limiter.reward(key, 1).catch(() => undefined)));
}
