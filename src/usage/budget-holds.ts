import type { BudgetTracker } from './budget.js';

/** The usage outcome of a video task's charge (tasks/poller.ts). */
export const VIDEO_COMPLETED = 'video_completed';

/** A refused hold: what the key had spent and held when it was refused. */
export interface HoldRefusal {
  spentUsd: number;
  heldUsd: number;
}

/** An admitted hold, given back with the real cost when its request ends. */
export interface Hold {
  readonly usd: number;
  /** `entryId`: the request's usage event, whose cost the shared budgets follow until it is in the ledger. */
  settle(actualUsd: number, entryId?: string): void | Promise<void>;
}

/**
 * Worst-case cost held against a key's budget while its request runs (issue 13): 50 streams
 * started together on a budget with room for one must not all pass a check of what was spent
 * before any of them ended. `hold` admits a request only when spent + held + its worst case fits
 * the budget, then adds its worst case to the held sum; `settle` replaces the hold with the real
 * cost when the request ends. Video tasks still running count through `pendingUsd`.
 */
export interface BudgetHolds {
  hold(keyId: string, budgetUsd: number, worstUsd: number, pendingUsd: number): Promise<Hold | HoldRefusal>;
  /** What requests in progress hold of the key's budget, where one store knows it whole (one instance); undefined otherwise. */
  heldUsd?(keyId: string): number;
}

export const isRefusal = (result: Hold | HoldRefusal): result is HoldRefusal => 'spentUsd' in result;

/**
 * One instance: spend comes from the tracker (the ledger plus this instance's events as they
 * are recorded, which happens before a request's hold is settled), holds live in memory.
 */
export class LocalBudgetHolds implements BudgetHolds {
  private readonly held = new Map<string, number>();

  constructor(private readonly tracker: BudgetTracker) {}

  async hold(keyId: string, budgetUsd: number, worstUsd: number, pendingUsd: number): Promise<Hold | HoldRefusal> {
    const spentUsd = await this.tracker.spent(keyId);
    // No await between this check and the update: concurrent holds see each other.
    const heldUsd = (this.held.get(keyId) ?? 0) + pendingUsd;
    if (spentUsd >= budgetUsd || spentUsd + heldUsd + worstUsd > budgetUsd) return { spentUsd, heldUsd };
    this.held.set(keyId, (this.held.get(keyId) ?? 0) + worstUsd);
    // The real cost reaches the tracker as a usage event; settling only gives the hold back.
    return { usd: worstUsd, settle: () => this.release(keyId, worstUsd) };
  }

  heldUsd(keyId: string): number {
    return this.held.get(keyId) ?? 0;
  }

  private release(keyId: string, usd: number): void {
    const left = (this.held.get(keyId) ?? 0) - usd;
    if (left <= 1e-12) this.held.delete(keyId);
    else this.held.set(keyId, left);
  }
}
