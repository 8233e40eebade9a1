import type { Redis } from 'ioredis';
import { INSTANCE_KEY_PREFIX, type InstanceRegistry, type ResyncTarget } from '../db/instance-registry.js';
import type { BudgetTracker } from './budget.js';
import { VIDEO_COMPLETED, type BudgetHolds, type Hold, type HoldRefusal } from './budget-holds.js';
import { BUDGET_TTL_SECONDS, HOLD_SCRIPT, MOVE_SCRIPT, SEED_SCRIPT, SET_OWN_SCRIPT, WRITERS_SCRIPT } from './budget-scripts.js';
import type { UsageEvent, UsageRecorder, WriteObserver } from './usage-recorder.js';

/** What this instance itself holds and has spent for one key: the truth its Redis fields are written from. */
interface KeyState {
  /** Worst cases of this instance's admitted requests in flight. */
  held: number;
  /** Worst cases of holds sent to Redis and not yet answered (counted as held meanwhile). */
  pending: number;
  /** Costs recorded here and counted in Redis, not yet in the ledger. */
  unwritten: number;
  /** Spent and held (every instance) at Redis's last answer before this conservative period. */
  seen: { spent: number; held: number } | undefined;
  /** Worst cases admitted since the conservative period `period` began: at most this instance's share. */
  conservativeUse: number;
  period: number;
  /** A batch's move was not confirmed: `base` is unknown and the hash is seeded again. */
  dirty: boolean;
}

const WRITE_COUNTER = 'gw:budget-writes:';
const WRITING = 'gw:budget-writing:';
/**
 * Not the `gw:budget:` hashes of earlier versions (spent and held as two sums): during a rolling
 * upgrade an older instance would read this layout as nothing spent.
 */
const hashOf = (keyId: string) => `gw:budget2:${keyId}`;
const SEED_TRIES = 50;
/** Keys whose figures are all zero are forgotten past this many. */
const MAX_KEYS = 10_000;

/**
 * Budgets across instances (issue 13, reworked for issue 23 items 8 and 9). Each instance keeps
 * for every key what it holds and what it has recorded but not yet written (its own truth), and
 * writes those figures, not increments, to its own fields of the key's Redis hash: a lost reply,
 * an outage or a Redis restart is repaired by writing them again. The ledger part (`base`) is read
 * from the database when a hash is seeded, while no instance is writing a batch, and each batch
 * written afterwards moves its cost from the writer's unwritten figure to it. Holds belong to
 * their instance: its lease lapsing (`kill -9`) ends them.
 *
 * While Redis is unreachable or being rebuilt (InstanceRegistry.conservative) a request is also
 * admitted only within this instance's share of what was left of the budget at Redis's last
 * answer: N instances together cannot overspend it.
 */
export class SharedBudgetHolds implements BudgetHolds, ResyncTarget, WriteObserver {
  private readonly keys = new Map<string, KeyState>();
  /** Costs counted in an unwritten figure, by the usage event's entry id, until its batch is written. */
  private readonly counted = new Map<string, { keyId: string; usd: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly registry: InstanceRegistry,
    private readonly tracker: BudgetTracker,
    usage: UsageRecorder,
  ) {
    for (const [name, lua, keys] of [
      ['gwBudgetHold', HOLD_SCRIPT, 1],
      ['gwBudgetSetOwn', SET_OWN_SCRIPT, 1],
      ['gwBudgetSeed', SEED_SCRIPT, 1],
      ['gwBudgetWriters', WRITERS_SCRIPT, 1],
    ] as const) {
      redis.defineCommand(name, { numberOfKeys: keys, lua });
    }
    redis.defineCommand('gwBudgetMove', { lua: MOVE_SCRIPT });
    registry.register(this);
    usage.observeWrites(this);
    // A video task is charged on completion, by whichever instance polls it: outside any request.
    usage.subscribe((event) => {
      if (event.outcome === VIDEO_COMPLETED && event.key_id && Number(event.cost_usd) > 0) this.count(event.key_id, Number(event.cost_usd), event.entry_id);
    });
  }

  async hold(keyId: string, budgetUsd: number, worstUsd: number, pendingUsd: number): Promise<Hold | HoldRefusal> {
    const state = this.stateOf(keyId);
    const conservative = this.registry.conservativeFor(state);
    if (conservative) {
      const refusal = await this.beyondShare(keyId, state, budgetUsd, worstUsd, pendingUsd);
      if (refusal) return refusal;
    }
    let answer: string[] | undefined;
    if (this.redis.status === 'ready') {
      const others = state.held + state.pending;
      state.pending += worstUsd;
      try {
        answer = await this.run('gwBudgetHold', hashOf(keyId), budgetUsd, worstUsd, pendingUsd, others);
        if (answer[0] === 'seed') {
          await this.seed(keyId);
          answer = await this.run('gwBudgetHold', hashOf(keyId), budgetUsd, worstUsd, pendingUsd, state.held + state.pending - worstUsd);
        }
      } catch {
        // Unreachable or too slow: this instance's share decides (checked below if not yet).
        answer = undefined;
      } finally {
        state.pending -= worstUsd;
      }
    }
    if (answer === undefined) {
      if (!conservative) {
        const refusal = await this.beyondShare(keyId, state, budgetUsd, worstUsd, pendingUsd);
        if (refusal) return refusal;
      }
      state.conservativeUse += worstUsd;
    } else {
      const spent = Number(answer[1]);
      const held = Number(answer[2]);
      if (!conservative) state.seen = { spent, held };
      if (answer[0] !== 'ok') return { spentUsd: spent, heldUsd: held };
      if (conservative) state.conservativeUse += worstUsd;
    }
    state.held += worstUsd;
    return { usd: worstUsd, settle: (actualUsd, entryId) => this.settle(keyId, worstUsd, actualUsd, entryId) };
  }

  /** The hold gives way to the request's real cost, counted as unwritten until its batch is in the ledger. */
  private settle(keyId: string, worstUsd: number, actualUsd: number, entryId: string | undefined): void {
    const state = this.stateOf(keyId);
    state.held = Math.max(0, state.held - worstUsd);
    this.count(keyId, actualUsd, entryId);
  }

  private count(keyId: string, usd: number, entryId: string | null | undefined): void {
    const state = this.stateOf(keyId);
    if (usd > 0 && entryId) {
      state.unwritten += usd;
      this.counted.set(entryId, { keyId, usd });
    }
    this.writeOwn(keyId, state);
  }

  /**
   * Writes this instance's figures for the key, and learns the key's totals from the answer (the
   * share this instance may use if Redis goes away next). A failure is repaired at the next write or resync.
   */
  private writeOwn(keyId: string, state: KeyState): void {
    if (this.redis.status !== 'ready') return;
    this.run('gwBudgetSetOwn', hashOf(keyId), state.held + state.pending, state.unwritten).then(
      (totals) => {
        if (totals.length === 2 && !this.registry.conservative) state.seen = { spent: Number(totals[0]), held: Number(totals[1]) };
      },
      () => undefined,
    );
  }

  /**
   * Admission within this instance's share while Redis's figures are missing or incomplete: what
   * was left at Redis's last answer (or, for a key never answered, at the ledger's figure and this
   * instance's holds), divided among the instances last seen.
   */
  private async beyondShare(keyId: string, state: KeyState, budgetUsd: number, worstUsd: number, pendingUsd: number): Promise<HoldRefusal | undefined> {
    // Never answered by Redis: the ledger's figure with this instance's events (unknown: refused).
    const spent = state.seen?.spent ?? (await this.tracker.spent(keyId).catch(() => budgetUsd));
    const held = state.seen?.held ?? state.held + pendingUsd;
    const share = (budgetUsd - spent - held) / this.registry.liveCount;
    if (spent >= budgetUsd || state.conservativeUse + worstUsd > share) return { spentUsd: spent, heldUsd: held + state.conservativeUse };
    return undefined;
  }


  /**
   * Sets the hash's base from the ledger, when no live instance wrote a batch between the reading
   * of the writers' counters and the seed (a batch in the ledger and still in its writer's
   * unwritten figure would count twice). After a second of retries it seeds anyway: too much.
   */
  private async seed(keyId: string): Promise<void> {
    for (let attempt = 0; attempt < SEED_TRIES; attempt++) {
      const force = attempt === SEED_TRIES - 1;
      const writers = (await this.raw('gwBudgetWriters', hashOf(keyId), INSTANCE_KEY_PREFIX, WRITE_COUNTER, WRITING)) as string[];
      const busy = writers.some((value, i) => i % 3 === 2 && value === '1');
      if (busy && !force) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      const ledger = await this.tracker.ledgerSum(keyId);
      const result = await this.raw('gwBudgetSeed', hashOf(keyId), ledger, BUDGET_TTL_SECONDS, INSTANCE_KEY_PREFIX, WRITE_COUNTER, WRITING, force ? '1' : '0', ...writers);
      if (result !== 'retry') return;
    }
  }

  /** Flags this instance as writing a batch, so no hash is seeded from a ledger read in the middle of it. */
  async beforeWrite(): Promise<void> {
    if (this.redis.status !== 'ready') return;
    await this.redis.set(WRITING + this.registry.id, '1', 'PX', this.registry.leaseMs).catch(() => undefined);
  }

  /** A batch is in the ledger: the costs this instance counted for it move from its unwritten figures to base. */
  afterWrite(batch: readonly UsageEvent[], stored: boolean): void {
    const moved = new Map<string, number>();
    if (stored) {
      for (const event of batch) {
        const counted = event.entry_id ? this.counted.get(event.entry_id) : undefined;
        if (!counted) continue;
        this.counted.delete(event.entry_id!);
        moved.set(counted.keyId, (moved.get(counted.keyId) ?? 0) + counted.usd);
      }
    }
    const keys = [...moved.keys()];
    const args: Array<string | number> = [this.registry.id, WRITE_COUNTER + this.registry.id, WRITING + this.registry.id, BUDGET_TTL_SECONDS];
    for (const keyId of keys) {
      const state = this.stateOf(keyId);
      state.unwritten = Math.max(0, state.unwritten - moved.get(keyId)!);
      args.push(moved.get(keyId)!, state.unwritten);
    }
    const markDirty = () => keys.forEach((keyId) => (this.stateOf(keyId).dirty = true));
    if (this.redis.status !== 'ready') return markDirty();
    this.raw('gwBudgetMove', keys.length, ...keys.map(hashOf), ...args).catch(markDirty);
  }

  /**
   * Redis is back: this instance's figures go in again, and the hashes whose base missed a batch
   * are seeded again. After a restart everything is gone; the others do the same as they return.
   */
  async resync(restarted: boolean): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const [keyId, state] of this.keys) {
      if (state.dirty && !restarted) pipeline.hdel(hashOf(keyId), 'base');
      state.dirty = false;
      if (state.held + state.pending + state.unwritten === 0) {
        if (state.seen === undefined) this.keys.delete(keyId);
        continue;
      }
      (pipeline as unknown as Record<string, (...args: unknown[]) => unknown>).gwBudgetSetOwn!(hashOf(keyId), this.registry.id, state.held + state.pending, state.unwritten, BUDGET_TTL_SECONDS, INSTANCE_KEY_PREFIX);
    }
    await pipeline.exec();
  }

  private stateOf(keyId: string): KeyState {
    let state = this.keys.get(keyId);
    if (!state) {
      if (this.keys.size >= MAX_KEYS) for (const [id, old] of this.keys) if (old.held + old.pending + old.unwritten === 0) this.keys.delete(id);
      state = { held: 0, pending: 0, unwritten: 0, seen: undefined, conservativeUse: 0, period: this.registry.currentPeriod, dirty: false };
      this.keys.set(keyId, state);
    }
    return state;
  }

  /** A per-key script with this instance's id, the instance key prefix and the ttl filled in. */
  private run(command: string, ...args: Array<string | number>): Promise<string[]> {
    const [key, ...rest] = args;
    const tail = command === 'gwBudgetHold' ? [INSTANCE_KEY_PREFIX, BUDGET_TTL_SECONDS] : [BUDGET_TTL_SECONDS, INSTANCE_KEY_PREFIX];
    return this.raw(command, key!, this.registry.id, ...rest, ...tail) as Promise<string[]>;
  }

  private raw(command: string, ...args: Array<string | number>): Promise<unknown> {
    return (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[command]!(...args);
  }
}

/**
 * After a crashed instance's journal was replayed into the ledger (main.ts), its unwritten
 * figures would count those events twice: they are removed, and the hashes of the keys concerned
 * are seeded again from the ledger.
 */
export async function forgetInstances(redis: Redis, instanceIds: readonly string[], keyIds: Iterable<string>): Promise<void> {
  if (instanceIds.length === 0) return;
  const pipeline = redis.pipeline();
  for (const keyId of new Set(keyIds)) pipeline.hdel(hashOf(keyId), 'base', ...instanceIds.map((id) => `u:${id}`), ...instanceIds.map((id) => `h:${id}`));
  await pipeline.exec();
}
