import type { Db } from '../db/connect.js';
import type { UsageRecorder } from './usage-recorder.js';
import { keySpentUsd } from './key-spend.js';

interface Spend {
  usd: number;
  /** When the ledger was last read for this key. */
  readAt: number;
  refreshing: Promise<void> | undefined;
}

/** How long a key's spend read from the ledger is trusted before it is read again in the background. */
const REFRESH_MS = 10_000;
const MAX_KEYS = 10_000;
const PENDING_REFRESH_MS = 1_000;

/**
 * What each key has spent, for budget checks without a ledger scan per request. A key's spend is
 * read once from the ledger (the sum of its daily rollups, usage/key-spend.ts), then this instance adds every
 * event it records as it records it; every 10 s the sum is read again in the background, which
 * also picks up what other instances spent. Only keys with a budget are ever looked up.
 */
export class BudgetTracker {
  private readonly spend = new Map<string, Spend>();
  private readonly pending = new Map<string, { usd: number; readAt: number }>();

  constructor(
    private readonly db: Db,
    private readonly usage: UsageRecorder,
    /** The reserved cost of the key's video tasks still running (tasks/task-repo.ts reads it). */
    private readonly pendingVideoCost: (keyId: string) => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {
    usage.subscribe((event) => {
      const entry = event.key_id ? this.spend.get(event.key_id) : undefined;
      if (entry) entry.usd += Number(event.cost_usd);
    });
  }

  /** USD spent by the key so far (this instance's unwritten events included). */
  async spent(keyId: string): Promise<number> {
    const entry = this.spend.get(keyId);
    if (!entry) {
      const fresh: Spend = { usd: 0, readAt: 0, refreshing: undefined };
      if (this.spend.size >= MAX_KEYS) this.spend.clear();
      this.spend.set(keyId, fresh);
      await this.refresh(keyId, fresh);
      return fresh.usd;
    }
    if (entry.refreshing) await entry.refreshing;
    // A failed background read (database down) keeps the running total until the next try.
    else if (this.now() - entry.readAt > REFRESH_MS) this.refresh(keyId, entry).catch(() => undefined);
    return entry.usd;
  }

  /**
   * The worst-case cost of the key's video tasks still running (their rows' `reserved_usd`), read
   * at most once a second per key; this instance forgets the figure when it creates a task.
   */
  async pendingVideo(keyId: string): Promise<number> {
    const cached = this.pending.get(keyId);
    if (cached && this.now() - cached.readAt < PENDING_REFRESH_MS) return cached.usd;
    let usd: number;
    try {
      usd = await this.pendingVideoCost(keyId);
    } catch (error) {
      // The database is down: the last figure read stands in (the key itself works from its cache too).
      if (cached) return cached.usd;
      throw error;
    }
    if (this.pending.size >= MAX_KEYS) this.pending.clear();
    this.pending.set(keyId, { usd, readAt: this.now() });
    return usd;
  }

  forgetPendingVideo(keyId: string): void {
    this.pending.delete(keyId);
  }

  /** The ledger's sum for the key (its rollups), this instance's queued events written first (no caching). */
  async ledgerSpent(keyId: string): Promise<number> {
    await this.usage.flush();
    return this.ledgerSum(keyId);
  }

  /** The ledger's sum for the key as stored now (its rollups). */
  async ledgerSum(keyId: string): Promise<number> {
    return keySpentUsd(this.db, keyId);
  }

  /**
   * Writes this instance's queued events first, so the ledger's sum includes everything this
   * instance has counted, then replaces the running total with it.
   */
  private refresh(keyId: string, entry: Spend): Promise<void> {
    entry.refreshing ??= (async () => {
      try {
        entry.usd = await this.ledgerSpent(keyId);
        entry.readAt = this.now();
      } finally {
        entry.refreshing = undefined;
      }
    })();
    return entry.refreshing;
  }
}
