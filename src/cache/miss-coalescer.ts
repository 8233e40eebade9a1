import type { CacheEntry } from './cache-store.js';

/** The first miss of an entry id: it goes upstream, then settles with what it stored (or nothing). */
export interface LeadingMiss {
  isLeader: true;
  settle: (entry: CacheEntry | undefined) => void;
}

/** A later identical miss while the first is in flight: it waits for the first one's answer. */
export interface WaitingMiss {
  isLeader: false;
  answer: Promise<CacheEntry | undefined>;
}

/**
 * Concurrent identical misses go upstream once (issue 32): the first leads, the others wait and
 * are served what it stored; when it stores nothing (it failed, was cut, ended in tool calls the
 * cache keeps out) each waiter goes upstream itself. In memory, per instance: where instances
 * share the store, only the leader here takes part in the fill across them (shared-fill.ts).
 */
export class MissCoalescer {
  private readonly leaders = new Map<string, Promise<CacheEntry | undefined>>();

  join(id: string): LeadingMiss | WaitingMiss {
    const pending = this.leaders.get(id);
    if (pending) return { isLeader: false, answer: pending };
    let resolve!: (entry: CacheEntry | undefined) => void;
    const answer = new Promise<CacheEntry | undefined>((r) => (resolve = r));
    this.leaders.set(id, answer);
    let isSettled = false;
    return {
      isLeader: true,
      settle: (entry) => {
        if (isSettled) return;
        isSettled = true;
        if (this.leaders.get(id) === answer) this.leaders.delete(id);
        resolve(entry);
      },
    };
  }

  /** Ids with a miss in flight (for tests and /admin/api/cache). */
  get inFlight(): number {
    return this.leaders.size;
  }
}
