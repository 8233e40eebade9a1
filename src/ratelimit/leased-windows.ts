import type { LimitKind, LimitState, Taken } from './limiters.js';
import type { LeaseAsk, LeaseCount, LeaseGet, LeaseReply } from './lease-primary.js';

/** How long a worker waits for the primary's answer before the step fails (as rate-limiter-flexible's cluster limiter did). */
const ASK_TIMEOUT_MS = 1_000;
/**
 * A refusal from the primary is repeated locally for this long without asking again (a key far
 * over its limit would otherwise ask on every request); room given back meanwhile by another
 * worker is seen after it.
 */
const REFUSAL_STANDS_MS = 250;

/** What a worker knows of one key's window. */
interface Lease {
  /** Leased points not used yet. */
  left: number;
  /** The most unused points this worker keeps (the rest goes back). */
  cap: number;
  windowEndsAt: number;
  /** The primary's room left after the last grant (headers; and a refusal it gave stands for the window). */
  room: number;
  /** The limit the primary judged `room` against: another limit (changed by an operator) asks again. */
  limit: number;
  /** The primary refused `refusedPoints` or more at `refusedAt`: refused here too for REFUSAL_STANDS_MS. */
  refusedPoints: number;
  refusedAt: number;
  /** An ask in flight: later steps for the key wait for it, then spend its lease. */
  asking: Promise<void> | undefined;
}

type Send = (message: LeaseAsk | LeaseCount | LeaseGet) => void;

/**
 * A worker's side of the leased counters (lease-primary.ts has the bound): a step is answered from
 * the key's lease when it has the points, otherwise the primary is asked once for them and a lease
 * beyond. One instance per worker process, shared by both kinds.
 */
export class LeasedWindows {
  private readonly leases = new Map<string, Lease>();
  private readonly waiting = new Map<number, (reply: LeaseReply) => void>();
  private seq = 0;

  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly send: Send,
    private readonly now: () => number = Date.now,
  ) {
    // Keys no request asks for again: their ended windows go.
    this.sweeper = setInterval(() => {
      for (const key of this.leases.keys()) this.open(key);
    }, 60_000);
    this.sweeper.unref();
  }

  /** Wires this to the worker's IPC channel with the primary. */
  static overIpc(now?: () => number): LeasedWindows {
    const leased = new LeasedWindows((message) => process.send!(message), now);
    process.on('message', (message) => leased.onReply(message));
    return leased;
  }

  /** A reply from the primary (other messages are ignored). */
  onReply(message: unknown): void {
    const reply = message as Partial<LeaseReply> | null;
    if (!reply || typeof reply !== 'object' || typeof reply.gwLeaseReply !== 'number') return;
    const resolve = this.waiting.get(reply.gwLeaseReply);
    if (!resolve) return;
    this.waiting.delete(reply.gwLeaseReply);
    resolve(reply as LeaseReply);
  }

  take(kind: LimitKind, id: string, limit: number, points: number): Taken | Promise<Taken> {
    const key = `${kind}:${id}`;
    const lease = this.open(key);
    if (lease?.asking) return lease.asking.then(() => this.take(kind, id, limit, points));
    if (lease && lease.limit === limit) {
      if (lease.left >= points) {
        lease.left -= points;
        return this.taken(true, lease, limit);
      }
      if (points >= lease.refusedPoints && this.now() - lease.refusedAt < REFUSAL_STANDS_MS) return this.taken(false, lease, limit);
    }
    return this.ask(kind, id, key, limit, points);
  }

  private ask(kind: LimitKind, id: string, key: string, limit: number, points: number): Promise<Taken> {
    const held = this.open(key);
    const lease: Lease = held ?? { left: 0, cap: 0, windowEndsAt: 0, room: limit, limit, refusedPoints: Infinity, refusedAt: 0, asking: undefined };
    if (!held) this.leases.set(key, lease);
    let result: Taken | undefined;
    lease.asking = this.request<LeaseReply>({ gwLease: 'take', seq: 0, kind, id, limit, points }).then(
      (reply) => {
        lease.asking = undefined;
        if (reply.windowEndsAt !== lease.windowEndsAt) {
          // A new window at the primary: what this worker held belonged to the old one.
          lease.left = 0;
          lease.refusedPoints = Infinity;
          lease.windowEndsAt = reply.windowEndsAt;
        }
        lease.cap = reply.cap;
        lease.room = reply.room;
        lease.limit = limit;
        if (!reply.admitted) {
          lease.refusedPoints = this.now() - lease.refusedAt < REFUSAL_STANDS_MS ? Math.min(lease.refusedPoints, points) : points;
          lease.refusedAt = this.now();
          result = this.taken(false, lease, limit);
          return;
        }
        lease.left += reply.granted - points;
        this.trim(kind, id, lease);
        result = this.taken(true, lease, limit);
      },
      (error: unknown) => {
        lease.asking = undefined;
        throw error;
      },
    );
    return lease.asking.then(() => result!);
  }

  /** Unused points back to the lease they came from (to the primary past the cap); nothing once their window has ended. */
  give(kind: LimitKind, id: string, points: number, windowEndsAt: number): void {
    const lease = this.open(`${kind}:${id}`);
    if (!lease || lease.windowEndsAt !== windowEndsAt || points <= 0) return;
    lease.left += points;
    this.trim(kind, id, lease);
  }

  /** Points used beyond what was taken: from the lease while it has them, the rest counted at the primary. */
  add(kind: LimitKind, id: string, points: number): void {
    const lease = this.open(`${kind}:${id}`);
    const fromLease = Math.min(points, lease?.left ?? 0);
    if (lease) lease.left -= fromLease;
    if (points > fromLease) this.send({ gwLease: 'add', kind, id, points: points - fromLease });
  }

  /** The counter at the primary (leased points count as taken), without counting anything. */
  async state(kind: LimitKind, id: string, limit: number): Promise<LimitState> {
    const reply = await this.request<LeaseReply>({ gwLease: 'get', seq: 0, kind, id });
    const lease = this.open(`${kind}:${id}`);
    return { limit, remaining: Math.max(0, limit - reply.consumed + (lease?.left ?? 0)), resetMs: Math.max(0, reply.windowEndsAt - this.now()) };
  }

  /** Keeps at most the cap unused; the rest goes back to the primary for the other workers. */
  private trim(kind: LimitKind, id: string, lease: Lease): void {
    const excess = lease.left - lease.cap;
    if (excess <= 0) return;
    lease.left = lease.cap;
    this.send({ gwLease: 'give', kind, id, points: excess, windowEndsAt: lease.windowEndsAt });
  }

  /**
   * Remaining as the headers show it: the primary's unleased room at the last ask plus this
   * worker's lease (other workers' unused leases are not seen: at most the bound).
   */
  private taken(admitted: boolean, lease: Lease, limit: number): Taken {
    const state = { limit, remaining: Math.max(0, Math.min(limit, lease.room + lease.left)), resetMs: Math.max(0, lease.windowEndsAt - this.now()) };
    return { admitted, state, windowEndsAt: lease.windowEndsAt };
  }

  private open(key: string): Lease | undefined {
    const lease = this.leases.get(key);
    if (!lease) return undefined;
    if (lease.asking || lease.windowEndsAt > this.now()) return lease;
    this.leases.delete(key);
    return undefined;
  }

  private request<T>(message: LeaseAsk | LeaseGet): Promise<T> {
    const seq = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      // Checked once more after the loop's next poll: a worker busy past the timeout (its first
      // requests compile and load modules) has the answer waiting unread in the IPC pipe, and
      // timers run before the poll that would read it.
      const timer = setTimeout(() => setImmediate(() => {
        if (!this.waiting.delete(seq)) return;
        reject(new Error('the cluster primary did not answer the rate limit step in time'));
      }), ASK_TIMEOUT_MS);
      timer.unref();
      this.waiting.set(seq, (reply) => {
        clearTimeout(timer);
        resolve(reply as T);
      });
      this.send({ ...message, seq });
    });
  }
}
