import type { Redis } from 'ioredis';
import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { redisLimiter } from './flexible.js';
import type { InstanceRegistry, ResyncTarget } from '../db/instance-registry.js';
import type { LimitState, Taken } from './limiters.js';

/** What this instance knows of one counter's current window. */
interface Mirror {
  /** When the window ends (epoch ms), as Redis said. */
  endsAt: number;
  /** Points this instance has counted in the window (admitted, less what it gave back). */
  own: number;
  /** The window's count at Redis's last answer before this conservative period. */
  seen: number;
  /** Points counted here while Redis could not be told; added when it is back. */
  unsent: number;
  /** Points admitted since the conservative period `period` began: at most this instance's share. */
  conservativeUse: number;
  period: number;
}

/** Re-adds points to a window Redis lost or missed: the key keeps (or gets) the window's end. */
const READD_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return count
`;

const MAX_MIRRORS = 100_000;

/**
 * Per-minute windows shared through Redis (rate-limiter-flexible's atomic INCRBY + TTL), with
 * what this instance counted kept beside them (issue 23 item 9). While Redis is unreachable, and
 * after it returns until every instance has added back what it knows, a request is admitted only
 * within this instance's share of what was left of the window at Redis's last answer, so N
 * instances cannot each admit the whole limit. When Redis is back, the points counted meanwhile
 * are added; after a restart (its counters gone), each instance adds its whole window.
 */
export class SharedWindows implements ResyncTarget {
  private readonly limiter: RateLimiterRedis;
  private readonly mirrors = new Map<string, Mirror>();
  private readonly keyPrefix: string;

  constructor(
    private readonly redis: Redis,
    private readonly registry: InstanceRegistry,
    kind: string,
    private readonly windowSeconds: number,
    private readonly now: () => number,
  ) {
    this.keyPrefix = `gw:rl:${kind}`;
    this.limiter = new (redisLimiter())({ keyPrefix: this.keyPrefix, points: Number.MAX_SAFE_INTEGER, duration: windowSeconds, storeClient: redis, rejectIfRedisNotReady: true });
    redis.defineCommand('gwWindowReadd', { numberOfKeys: 1, lua: READD_SCRIPT });
    registry.register(this);
  }

  async take(id: string, limit: number, points: number): Promise<Taken> {
    const mirror = this.mirrorOf(id);
    const conservative = this.registry.conservativeFor(mirror);
    if (conservative && !this.withinShare(mirror, limit, points)) return this.refused(mirror, limit);
    let counted: { consumedPoints: number; msBeforeNext: number } | undefined;
    try {
      counted = await this.limiter.consume(id, points);
    } catch (error) {
      // Unreachable or slow (rejectIfRedisNotReady rejects with an Error; over-limit never happens with these points).
      if (!(error instanceof Error)) throw error;
    }
    if (!counted) {
      if (!conservative && !this.withinShare(mirror, limit, points)) return this.refused(mirror, limit);
      mirror.own += points;
      mirror.unsent += points;
      mirror.conservativeUse += points;
      return { admitted: true, state: this.stateOf(mirror, limit, mirror.seen + mirror.conservativeUse), windowEndsAt: mirror.endsAt };
    }
    // Redis's window is the window; what this instance counted stays until it ends (a window Redis
    // opened afresh after a restart may end later than the lost one: counting longer is the safe side).
    const endsAt = this.now() + counted.msBeforeNext;
    mirror.endsAt = Math.max(mirror.endsAt, endsAt);
    if (!conservative) mirror.seen = counted.consumedPoints;
    if (counted.consumedPoints > limit) {
      await this.limiter.reward(id, points).catch(() => undefined);
      return { admitted: false, state: state(limit, counted.consumedPoints - points, counted.msBeforeNext), windowEndsAt: endsAt };
    }
    mirror.own += points;
    if (conservative) mirror.conservativeUse += points;
    return { admitted: true, state: state(limit, counted.consumedPoints, counted.msBeforeNext), windowEndsAt: endsAt };
  }

  /** Gives points back (a refusal downstream, or usage below the reservation). */
  async give(id: string, points: number): Promise<void> {
    const mirror = this.mirrors.get(id);
    if (mirror) mirror.own = Math.max(0, mirror.own - points);
    if (this.redis.status === 'ready') {
      try {
        await this.limiter.reward(id, points);
        return;
      } catch {
        // told when Redis is back
      }
    }
    if (mirror) mirror.unsent -= points;
  }

  /** Counts points beyond a reservation; never refuses. */
  async add(id: string, points: number): Promise<void> {
    const mirror = this.mirrorOf(id);
    mirror.own += points;
    if (this.redis.status === 'ready') {
      try {
        await this.limiter.penalty(id, points);
        return;
      } catch {
        // told when Redis is back
      }
    }
    mirror.unsent += points;
  }

  async get(id: string): Promise<{ consumedPoints: number; msBeforeNext: number } | null> {
    return this.limiter.get(id);
  }

  /** Redis is back: what it missed is added; after a restart, everything this instance counted in its open windows. */
  async resync(restarted: boolean): Promise<void> {
    const now = this.now();
    const pipeline = this.redis.pipeline();
    for (const [id, mirror] of this.mirrors) {
      if (mirror.endsAt <= now) {
        this.mirrors.delete(id);
        continue;
      }
      const points = restarted ? mirror.own : mirror.unsent;
      mirror.unsent = 0;
      if (points !== 0) (pipeline as unknown as Record<string, (...args: unknown[]) => unknown>).gwWindowReadd!(`${this.keyPrefix}:${id}`, points, mirror.endsAt - now);
    }
    await pipeline.exec();
  }

  private withinShare(mirror: Mirror, limit: number, points: number): boolean {
    return mirror.conservativeUse + points <= (limit - mirror.seen) / this.registry.liveCount;
  }


  private mirrorOf(id: string): Mirror {
    const now = this.now();
    let mirror = this.mirrors.get(id);
    if (mirror && mirror.endsAt <= now) {
      // The window ended: its count is gone everywhere, what is kept here too.
      Object.assign(mirror, { endsAt: now + this.windowSeconds * 1000, own: 0, seen: 0, unsent: 0 });
    }
    if (!mirror) {
      if (this.mirrors.size >= MAX_MIRRORS) for (const [key, old] of this.mirrors) if (old.endsAt <= now) this.mirrors.delete(key);
      mirror = { endsAt: now + this.windowSeconds * 1000, own: 0, seen: 0, unsent: 0, conservativeUse: 0, period: this.registry.currentPeriod };
      this.mirrors.set(id, mirror);
    }
    return mirror;
  }

  private refused(mirror: Mirror, limit: number): Taken {
    return { admitted: false, state: this.stateOf(mirror, limit, mirror.seen + mirror.conservativeUse), windowEndsAt: mirror.endsAt };
  }

  private stateOf(mirror: Mirror, limit: number, consumed: number): LimitState {
    return state(limit, consumed, Math.max(0, mirror.endsAt - this.now()));
  }
}

const state = (limit: number, consumed: number, resetMs: number): LimitState => ({ limit, remaining: Math.max(0, limit - consumed), resetMs: Math.max(0, resetMs) });
