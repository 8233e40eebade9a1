import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CacheEntry } from './cache-store.js';
import type { FillLeases } from './fill-leases.js';

/** This instance's miss fills the entry for every instance; `release` once its write landed (or it stored nothing). */
export interface SharedLead {
  isLeader: true;
  release: (landed: Promise<void>) => void;
}

/** Another instance fills it: what it stored, or undefined (it stored nothing, or not within the bound). */
export interface SharedWait {
  isLeader: false;
  entry: CacheEntry | undefined;
}

const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 200;

/**
 * Identical misses on instances that share a store go upstream once (issue 32). An instance's
 * leading miss (miss-coalescer.ts first) claims the entry id's lease: holding it, it goes upstream;
 * otherwise it polls the store for the leader's entry with a growing pause, until the entry is
 * there, the lease is gone (the leader stored nothing: go upstream) or `waitMs` passed (the lease's
 * own bound, so a crashed leader holds the others back no longer). Store errors fail open.
 */
export class SharedFills {
  constructor(
    private readonly leases: FillLeases,
    private readonly lookup: (id: string, scope: string) => Promise<CacheEntry | undefined>,
    private readonly now: () => number,
    readonly waitMs: number,
  ) {}

  async join(id: string, scope: string): Promise<SharedLead | SharedWait> {
    const holder = randomUUID();
    const claimed = await this.leases.claim(id, holder, this.waitMs, this.now()).catch(() => true);
    if (!claimed) return { isLeader: false, entry: await this.waitFor(id, scope) };
    let isReleased = false;
    return {
      isLeader: true,
      release: (landed) => {
        if (isReleased) return;
        isReleased = true;
        void landed.then(() => this.leases.release(id, holder)).catch(() => undefined);
      },
    };
  }

  private async waitFor(id: string, scope: string): Promise<CacheEntry | undefined> {
    const deadline = this.now() + this.waitMs;
    for (let pause = FIRST_POLL_MS; this.now() < deadline; pause = Math.min(pause * 2, MAX_POLL_MS)) {
      await sleep(Math.min(pause, Math.max(1, deadline - this.now())));
      const entry = await this.lookup(id, scope).catch(() => undefined);
      if (entry) return entry;
      const isHeld = await this.leases.held(id, this.now()).catch(() => false);
      // Gone: the leader let go; it may have stored just before (its write lands, then it lets go).
      if (!isHeld) return this.lookup(id, scope).catch(() => undefined);
    }
    return undefined;
  }
}
