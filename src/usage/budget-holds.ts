import type { Redis } from 'ioredis';
import type { BudgetTracker } from './budget.js';
import type { UsageRecorder } from './usage-recorder.js';

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
  settle(actualUsd: number): void | Promise<void>;
}

/** How long a key's shared figures live in Redis after its last request (then read again from the ledger). */
const SHARED_TTL_SECONDS = 3_600;

/**
 * Worst-case cost held against a key's budget while its request runs (issue 13): 50 streams
 * started together on a budget with room for one must not all pass a check of what was spent
 * before any of them ended. `hold` admits a request only when spent + held + its worst case fits
 * the budget, then adds its worst case to the held sum; `settle` replaces the hold with the real
 * cost when the request ends. Video tasks still running count through `pendingUsd`.
 */
export interface BudgetHolds {
  hold(keyId: string, budgetUsd: number, worstUsd: number, pendingUsd: number): Promise<Hold | HoldRefusal>;
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

  private release(keyId: string, usd: number): void {
    const left = (this.held.get(keyId) ?? 0) - usd;
    if (left <= 1e-12) this.held.delete(keyId);
    else this.held.set(keyId, left);
  }
}

/**
 * Every instance together (REDIS_URL): one hash per key holds `spent` (read once from the ledger,
 * then moved by every settle and charge, from any instance) and `held`, checked and updated by one
 * script, so N instances admit a budget once, not N times. The hash expires an hour after the
 * key's last request and is then read again from the ledger.
 */
export class SharedBudgetHolds implements BudgetHolds {
  constructor(
    private readonly redis: Redis,
    private readonly tracker: BudgetTracker,
    usage: UsageRecorder,
  ) {
    redis.defineCommand('gwBudgetHold', { numberOfKeys: 1, lua: HOLD_SCRIPT });
    redis.defineCommand('gwBudgetSettle', { numberOfKeys: 1, lua: SETTLE_SCRIPT });
    // A video task is charged on completion, by whichever instance polls it: outside any request.
    usage.subscribe((event) => {
      if (event.outcome === VIDEO_COMPLETED && event.key_id && Number(event.cost_usd) > 0) this.charge(event.key_id, Number(event.cost_usd)).catch(() => undefined);
    });
  }

  async hold(keyId: string, budgetUsd: number, worstUsd: number, pendingUsd: number): Promise<Hold | HoldRefusal> {
    const key = sharedKey(keyId);
    let answer = await this.run('gwBudgetHold', key, budgetUsd, worstUsd, pendingUsd, '');
    if (answer[0] === 'seed') answer = await this.run('gwBudgetHold', key, budgetUsd, worstUsd, pendingUsd, String(await this.tracker.ledgerSpent(keyId)));
    if (answer[0] !== 'ok') return { spentUsd: Number(answer[1]), heldUsd: Number(answer[2]) };
    return {
      usd: worstUsd,
      // A settle that fails (Redis went away) leaves the hold until the hash expires: refusals, never overspending.
      settle: (actualUsd) => this.run('gwBudgetSettle', key, -worstUsd, actualUsd, 0, '').then(() => undefined, () => undefined),
    };
  }

  private charge(keyId: string, usd: number): Promise<unknown> {
    return this.run('gwBudgetSettle', sharedKey(keyId), 0, usd, 0, '');
  }

  private run(command: string, key: string, a: number, b: number, c: number, seed: string): Promise<string[]> {
    return (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<string[]>>)[command]!(key, a, b, c, seed, SHARED_TTL_SECONDS);
  }
}

/**
 * Redis when it answers, this instance's own holds when it does not (issue 13: a Redis outage
 * must not stall or fail requests); a hold is settled where it was taken.
 */
export class FailoverBudgetHolds implements BudgetHolds {
  constructor(
    private readonly redis: Redis,
    private readonly shared: BudgetHolds,
    private readonly local: BudgetHolds,
  ) {}

  async hold(keyId: string, budgetUsd: number, worstUsd: number, pendingUsd: number): Promise<Hold | HoldRefusal> {
    if (this.redis.status === 'ready') {
      try {
        return await this.shared.hold(keyId, budgetUsd, worstUsd, pendingUsd);
      } catch {
        // Timed out or refused: counted here instead (main.ts logs the outage).
      }
    }
    return this.local.hold(keyId, budgetUsd, worstUsd, pendingUsd);
  }
}

const sharedKey = (keyId: string) => `gw:budget:${keyId}`;

/** KEYS[1]: the key's hash. ARGV: budget, worst case, pending video, spent seed ('' = none yet), ttl. */
const HOLD_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[4] == '' then return {'seed'} end
  redis.call('HSET', KEYS[1], 'spent', ARGV[4], 'held', 0)
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local held = tonumber(redis.call('HGET', KEYS[1], 'held') or '0') + tonumber(ARGV[3])
local budget = tonumber(ARGV[1])
if spent >= budget or spent + held + tonumber(ARGV[2]) > budget then return {'refused', tostring(spent), tostring(held)} end
redis.call('HINCRBYFLOAT', KEYS[1], 'held', ARGV[2])
return {'ok'}
`;

/** KEYS[1]: the key's hash. ARGV: change of held, cost to add to spent. A missing hash is left alone (the ledger has the cost). */
const SETTLE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
if tonumber(ARGV[1]) ~= 0 then redis.call('HINCRBYFLOAT', KEYS[1], 'held', ARGV[1]) end
if tonumber(ARGV[2]) ~= 0 then redis.call('HINCRBYFLOAT', KEYS[1], 'spent', ARGV[2]) end
return {'ok'}
`;
