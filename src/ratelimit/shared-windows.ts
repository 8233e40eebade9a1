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
 * How long a request waits for Redis to count it before this instance decides alone (the shared
 * client's command timeout). The counting connection itself has none: a reply that comes later
 * still arrives, and says the points were counted after all (`settleLate`).
 */
export const COUNT_WAIT_MS = 500;

const TIMED_OUT = Symbol('timed out');

/**
 * The step's result, or TIMED_OUT once `ms` have passed; a rejection comes back as undefined. A
 * loop that was busy past the deadline runs its expired timers before it reads its sockets, so the
 * deadline gives way to one turn of I/O first (setImmediate): a reply that had already come is
 * taken (issue 45: under load, redis-shared admitted 8 for rpm 7 on replies that were there).
 */
function within<T>(step: Promise<T>, ms: number): Promise<T | undefined | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  let turn: NodeJS.Immediate | undefined;
  const bound = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => (turn = setImmediate(resolve, TIMED_OUT)), ms)));
  return Promise.race([step.catch(() => undefined), bound]).finally(() => {
    clearTimeout(timer);
    clearImmediate(turn);
  });
}

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

  /**
   * `counting`: the connection the counters' steps go through, without a command timeout of its
   * own (the shared client's 500 ms would drop the late reply that says a step was counted).
   */
  constructor(
    private readonly redis: Redis,
    private readonly registry: InstanceRegistry,
    kind: string,
    private readonly windowSeconds: number,
    private readonly now: () => number,
    counting: Redis = redis,
  ) {
    this.keyPrefix = `gw:rl:${kind}`;
    this.limiter = new (redisLimiter())({ keyPrefix: this.keyPrefix, points: Number.MAX_SAFE_INTEGER, duration: windowSeconds, storeClient: counting, rejectIfRedisNotReady: true });
    redis.defineCommand('gwWindowReadd', { numberOfKeys: 1, lua: READD_SCRIPT });
    registry.register(this);
  }

  async take(id: string, limit: number, points: number): Promise<Taken> {
    const mirror = this.mirrorOf(id);
    const conservative = this.registry.conservativeFor(mirror);
    if (conservative && !this.withinShare(mirror, limit, points)) return this.refused(mirror, limit);
    // Unreachable (rejectIfRedisNotReady rejects; over-limit never happens with these points) or slow.
    const counting = this.limiter.consume(id, points);
    const counted = await within(counting, COUNT_WAIT_MS);
    if (counted === undefined || counted === TIMED_OUT) {
      const admitted = conservative || this.withinShare(mirror, limit, points);
      if (counted === TIMED_OUT) {
        const windowEndsAt = mirror.endsAt;
        counting.then(() => this.settleLate(id, mirror, windowEndsAt, points, admitted), () => undefined);
      }
      if (!admitted) return this.refused(mirror, limit);
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
      // Given back before the refusal is answered, unless Redis is slow: then it lands when Redis answers.
      await within(this.limiter.reward(id, points), COUNT_WAIT_MS);
      return { admitted: false, state: state(limit, counted.consumedPoints - points, counted.msBeforeNext), windowEndsAt: endsAt };
    }
    mirror.own += points;
    if (conservative) mirror.conservativeUse += points;
    return { admitted: true, state: state(limit, counted.consumedPoints, counted.msBeforeNext), windowEndsAt: endsAt };
  }

  /**
   * Redis counted a step after this instance stopped waiting for it (issue 36: under load a reply
   * can take longer than COUNT_WAIT_MS). Admitted here: Redis has the points already, so they are
   * not added again when Redis is next re-synced. Refused here: they are given back in Redis.
   */
  private settleLate(id: string, mirror: Mirror, windowEndsAt: number, points: number, admittedHere: boolean): void {
    // A window that ended meanwhile took its count with it: nothing to correct (the safe side).
    if (mirror.endsAt !== windowEndsAt || windowEndsAt <= this.now()) return;
    if (admittedHere) mirror.unsent = Math.max(0, mirror.unsent - points);
    else this.limiter.reward(id, points).catch(() => undefined);
  }

  /** Gives points back (a refusal downstream, or usage below the reservation). */
  async give(id: string, points: number): Promise<void> {
    const mirror = this.mirrors.get(id);
    if (mirror) mirror.own = Math.max(0, mirror.own - points);
    if (this.redis.status === 'ready' && (await this.sentWithin(this.limiter.reward(id, points), () => mirror && (mirror.unsent -= points)))) return;
    // told when Redis is back
    if (mirror) mirror.unsent -= points;
  }

  /** Counts points beyond a reservation; never refuses. */
  async add(id: string, points: number): Promise<void> {
    const mirror = this.mirrorOf(id);
    mirror.own += points;
    if (this.redis.status === 'ready' && (await this.sentWithin(this.limiter.penalty(id, points), () => (mirror.unsent += points)))) return;
    // told when Redis is back
    mirror.unsent += points;
  }

  /**
   * True when Redis took the step, or is still working on it after COUNT_WAIT_MS (it lands when
   * Redis answers; `ifLost` runs if it never does); false when it failed at once.
   */
  private async sentWithin(step: Promise<unknown>, ifLost: () => unknown): Promise<boolean> {
    const sent = await within(step.then(() => true), COUNT_WAIT_MS);
    if (sent === TIMED_OUT) step.catch(ifLost);
    return sent !== undefined;
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
