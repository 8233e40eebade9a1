import type { Redis } from 'ioredis';
import cluster from 'node:cluster';
import { memoryLimiter, redisLimiter } from './flexible.js';
import { MemoryWindows, type WindowCount } from './memory-windows.js';
import { SharedWindows } from './shared-windows.js';
import { LeasedWindows } from './leased-windows.js';
import type { InstanceRegistry } from '../db/instance-registry.js';

export type LimitKind = 'requests' | 'tokens';

/** A counter's state after a step, in the terms of the `x-ratelimit-*` headers. */
export interface LimitState {
  limit: number;
  remaining: number;
  /** Milliseconds until the window ends and the counter starts again. */
  resetMs: number;
}

export interface Taken {
  admitted: boolean;
  state: LimitState;
  /** When the window this step counted in ends (epoch ms); a refund after it would grant extra room. */
  windowEndsAt: number;
}

/** One window per counter; the limits are per minute. */
export const WINDOW_SECONDS = 60;

/** The four steps a counter store takes: MemoryWindows, or a rate-limiter-flexible limiter. */
interface WindowStore {
  consume(id: string, points: number): WindowCount | Promise<WindowCount>;
  reward(id: string, points: number): unknown;
  penalty(id: string, points: number): unknown;
  get(id: string): WindowCount | null | Promise<WindowCount | null>;
}

/**
 * Per-minute counters: in process memory on the embedded default (MemoryWindows), in Redis
 * (rate-limiter-flexible's atomic INCRBY + TTL script) when the gateway shares one, so N
 * instances together admit the limit once, not N times. One limiter per kind with an unbounded point budget; the limit is
 * compared here, per call, so a key's counter survives a change of its limit (an operator
 * lowering rpm mid-minute takes effect on the requests already counted). A refused step is
 * given back at once: refusals do not use up the next request's room.
 */
export class RateLimiters {
  private readonly limiters: Record<LimitKind, WindowStore>;
  /** With Redis: the shared windows, which also judge (issue 23: their own fallback and rebuild). */
  private readonly shared: Record<LimitKind, SharedWindows> | undefined;
  private readonly counting: Redis | undefined;
  /** GATEWAY_WORKERS without Redis: leases from the primary (issue 36), which also judge. */
  private readonly leased: LeasedWindows | undefined;

  constructor(redis: Redis | undefined, private readonly now: () => number = Date.now, registry?: InstanceRegistry) {
    const make = (kind: LimitKind): WindowStore => {
      const options = { keyPrefix: `gw:rl:${kind}`, points: Number.MAX_SAFE_INTEGER, duration: WINDOW_SECONDS };
      if (!redis) return new MemoryWindows(WINDOW_SECONDS * 1000, now);
      // Without an instance registry (tools and tests that build limiters alone): the instance limits on its own while Redis is down.
      // rejectIfRedisNotReady: while the connection is down, straight to the insurance (no wait).
      return new (redisLimiter())({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new (memoryLimiter())(options) });
    };
    // GATEWAY_WORKERS without Redis: the primary keeps the counters and leases room to the workers (lease-primary.ts).
    this.leased = !redis && cluster.isWorker ? (workerLeases ??= LeasedWindows.overIpc(now)) : undefined;
    this.limiters = this.leased ? ({} as Record<LimitKind, WindowStore>) : { requests: make('requests'), tokens: make('tokens') };
    if (redis && registry) {
      // The counters' own connection, without the shared client's command timeout: SharedWindows
      // bounds each wait itself and still hears a late reply (that the step was counted after all).
      this.counting = redis.duplicate({ commandTimeout: undefined });
      this.counting.on('error', () => undefined);
      const shared = (kind: LimitKind) => new SharedWindows(redis, registry, kind, WINDOW_SECONDS, now, this.counting);
      this.shared = { requests: shared('requests'), tokens: shared('tokens') };
    }
  }

  /** Closes the counters' own Redis connection (the app's onClose). */
  async close(): Promise<void> {
    await this.counting?.quit().catch(() => this.counting?.disconnect());
  }

  /**
   * Counts `points` against the limit; refused (and given back) when that would exceed it.
   * Synchronous with the in-memory store (no promise on the embedded hot path), a promise with Redis.
   */
  take(kind: LimitKind, id: string, limit: number, points: number): Taken | Promise<Taken> {
    if (this.shared) return this.shared[kind].take(id, limit, points);
    if (this.leased) return this.leased.take(kind, id, limit, points);
    const limiter = this.limiters[kind];
    const res = limiter.consume(id, points);
    return res instanceof Promise ? res.then((counted) => this.judge(limiter, counted, id, limit, points)) : this.judge(limiter, res, id, limit, points);
  }

  private judge(limiter: WindowStore, res: WindowCount, id: string, limit: number, points: number): Taken | Promise<Taken> {
    const windowEndsAt = this.now() + res.msBeforeNext;
    if (res.consumedPoints <= limit) return { admitted: true, state: stateOf(res, limit, res.consumedPoints), windowEndsAt };
    const refused: Taken = { admitted: false, state: stateOf(res, limit, res.consumedPoints - points), windowEndsAt };
    const given = limiter.reward(id, points);
    return given instanceof Promise ? given.then(() => refused) : refused;
  }

  /** Gives points back, unless their window has already ended. A promise only with a shared store. */
  give(kind: LimitKind, id: string, points: number, windowEndsAt: number): void | Promise<void> {
    if (points <= 0 || this.now() >= windowEndsAt) return;
    if (this.shared) return this.shared[kind].give(id, points);
    if (this.leased) return this.leased.give(kind, id, points, windowEndsAt);
    return settled(this.limiters[kind].reward(id, points));
  }

  /** The counter as it stands, without counting anything (tests, and operators' tools). */
  async state(kind: LimitKind, id: string, limit: number): Promise<LimitState> {
    if (this.leased) return this.leased.state(kind, id, limit);
    const res = await (this.shared ? this.shared[kind].get(id) : this.limiters[kind].get(id));
    return res ? stateOf(res, limit, res.consumedPoints) : { limit, remaining: limit, resetMs: 0 };
  }

  /** Counts points that turned out to be used beyond what was reserved; never refuses. */
  add(kind: LimitKind, id: string, points: number): void | Promise<void> {
    if (points <= 0) return;
    if (this.shared) return this.shared[kind].add(id, points);
    if (this.leased) return this.leased.add(kind, id, points);
    return settled(this.limiters[kind].penalty(id, points));
  }
}

/** One per worker process: its leases outlive an app rebuilt in the same process (tests), and one IPC listener serves them. */
let workerLeases: LeasedWindows | undefined;

/** A store step's completion: nothing for the in-memory store, a promise of nothing for the others. */
const settled = (step: unknown): void | Promise<void> => (step instanceof Promise ? step.then(() => undefined) : undefined);

const stateOf = (res: WindowCount, limit: number, consumed: number): LimitState => ({
  limit,
  remaining: Math.max(0, limit - consumed),
  resetMs: Math.max(0, res.msBeforeNext),
});
