import type { Worker } from 'node:cluster';
import type { LimitKind } from './limiters.js';

/**
 * GATEWAY_WORKERS without Redis (issue 36): the primary keeps each key's per-minute counters and
 * hands workers leases, blocks of room a worker then spends on its own, so it is asked once per
 * lease, not once per request (rate-limiter-flexible's cluster limiter asked it on every request:
 * ~30 µs of the primary's single thread each, its ceiling near 33k req/s).
 *
 * The bound (docs/workers.md):
 * - Never more than the limit in a window: a leased point counts at the primary as taken, whether
 *   the worker has used it yet or not. Points used beyond a reservation are counted on top, never
 *   refused (as on one process).
 * - A request may be refused while other workers still hold leased points they have not used: each
 *   worker holds at most `cap = ⌊limit / (16 × workers)⌋` unused points (more goes back to the
 *   primary), so at most (workers − 1) × cap, under 1/16 of the limit, is out of reach in a window.
 *   A limit under 16 × workers points has cap 0: every point is asked for, and the count is exact.
 */

/** Worker → primary: room for `points` (and a lease beyond them if the window has it to spare). */
export interface LeaseAsk {
  gwLease: 'take';
  seq: number;
  kind: LimitKind;
  id: string;
  limit: number;
  points: number;
}
/** Worker → primary: points used beyond what was taken (never refused), or unused points given back to `windowEndsAt`'s window. */
export interface LeaseCount {
  gwLease: 'add' | 'give';
  kind: LimitKind;
  id: string;
  points: number;
  windowEndsAt?: number;
}
/** Worker → primary: the counter as it stands. */
export interface LeaseGet {
  gwLease: 'get';
  seq: number;
  kind: LimitKind;
  id: string;
}
/** Primary → worker: whether the points were admitted, `granted` (them and the lease beyond), the room left unleased, the window's end, and the most a worker may keep. */
export interface LeaseReply {
  gwLeaseReply: number;
  admitted: boolean;
  granted: number;
  consumed: number;
  room: number;
  windowEndsAt: number;
  cap: number;
}

export type LeaseMessage = LeaseAsk | LeaseCount | LeaseGet;

interface Window {
  consumed: number;
  endsAt: number;
}

/** The most unused points a worker keeps for a key with this limit. */
export const leaseCap = (limit: number, workers: number): number => Math.floor(limit / (16 * Math.max(1, workers)));

/** The primary's counters: fixed windows as MemoryWindows keeps them, answering leases. */
export class LeaseLedger {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly workers: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), windowMs);
    this.sweeper.unref();
  }

  /**
   * Grants `points` when the window has room for them, plus a lease: half the rest shared among
   * the workers, at most the cap, so the last of a window goes a request at a time.
   */
  take(kind: LimitKind, id: string, limit: number, points: number): Omit<LeaseReply, 'gwLeaseReply'> {
    const window = this.window(`${kind}:${id}`);
    const cap = leaseCap(limit, this.workers);
    const room = Math.max(0, limit - window.consumed);
    if (points > room) return { admitted: false, granted: 0, consumed: window.consumed, room, windowEndsAt: window.endsAt, cap };
    const extra = Math.min(cap, Math.floor((room - points) / (2 * this.workers)));
    const granted = points + extra;
    window.consumed += granted;
    return { admitted: true, granted, consumed: window.consumed, room: room - granted, windowEndsAt: window.endsAt, cap };
  }

  add(kind: LimitKind, id: string, points: number): void {
    this.window(`${kind}:${id}`).consumed += points;
  }

  /** Unused points back to their window (nothing once it has ended: a new one started empty). */
  give(kind: LimitKind, id: string, points: number, windowEndsAt: number | undefined): void {
    const window = this.windows.get(`${kind}:${id}`);
    if (window && window.endsAt > this.now() && window.endsAt === windowEndsAt) window.consumed = Math.max(0, window.consumed - points);
  }

  get(kind: LimitKind, id: string): { consumed: number; windowEndsAt: number } {
    const window = this.windows.get(`${kind}:${id}`);
    const now = this.now();
    return window && window.endsAt > now ? { consumed: window.consumed, windowEndsAt: window.endsAt } : { consumed: 0, windowEndsAt: now };
  }

  /** Answers one worker message; false when it was not the lease's. */
  handle(worker: Pick<Worker, 'send'>, message: unknown): boolean {
    const m = message as Partial<LeaseMessage> | null;
    if (!m || typeof m !== 'object' || typeof m.gwLease !== 'string') return false;
    switch (m.gwLease) {
      case 'take': {
        const ask = m as LeaseAsk;
        worker.send({ gwLeaseReply: ask.seq, ...this.take(ask.kind, ask.id, ask.limit, ask.points) } satisfies LeaseReply);
        return true;
      }
      case 'get': {
        const ask = m as LeaseGet;
        const { consumed, windowEndsAt } = this.get(ask.kind, ask.id);
        worker.send({ gwLeaseReply: ask.seq, admitted: false, granted: 0, consumed, room: 0, windowEndsAt, cap: 0 } satisfies LeaseReply);
        return true;
      }
      case 'add':
        this.add(m.kind!, m.id!, m.points!);
        return true;
      case 'give':
        this.give(m.kind!, m.id!, m.points!, m.windowEndsAt);
        return true;
      default:
        return false;
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private window(key: string): Window {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { consumed: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    return window;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
