import type { Redis } from 'ioredis';

/** How long an instance's presence lasts in Redis unless renewed (GATEWAY_INSTANCE_LEASE_MS). */
export const DEFAULT_INSTANCE_LEASE_MS = 15_000;

const INSTANCES = 'gw:instances';
/** Read by the budget scripts too: a hold counts while its instance's key exists. */
export const INSTANCE_KEY_PREFIX = 'gw:instance:';

/** What an instance admitted of one limit or budget while conservative, and in which conservative period. */
export interface ConservativeUse {
  conservativeUse: number;
  period: number;
}

/** Something that keeps state in Redis and can write it again from what this instance knows. */
export interface ResyncTarget {
  /** Called after the connection came back (`restarted`: Redis lost its data), before this instance shows itself again. */
  resync(restarted: boolean): Promise<void>;
}

/**
 * Which gateway instances share this Redis (issue 23 items 8 and 9). Each instance holds a key
 * `gw:instance:<id>` with a lease, renewed a third of the lease at a time: what an instance holds
 * in Redis (budget holds) belongs to it and is ignored once the key has lapsed, so `kill -9`
 * leaves nothing held for longer than the lease. The value is the number of times the instance
 * has re-synced after an outage.
 *
 * While Redis is unreachable, and after it comes back until every instance known before has
 * written its state again (or a lease has passed), the figures in Redis are incomplete:
 * `conservative` is true, and the limiters and budgets admit only this instance's share of what
 * was left (`liveCount`).
 */
export class InstanceRegistry {
  private live = 1;
  private known = new Map<string, string>();
  private runId: string | undefined;
  private syncs = 0;
  private down = false;
  /** Set from a reconnect until the others have re-synced too. */
  private rebuild: { until: number; waitingFor: Map<string, string> } | undefined;
  private readonly targets: ResyncTarget[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private period = 0;
  private wasConservative = false;

  constructor(
    private readonly redis: Redis,
    readonly id: string,
    readonly leaseMs: number = DEFAULT_INSTANCE_LEASE_MS,
    private readonly now: () => number = Date.now,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Shows this instance and starts renewing; resyncs its targets whenever Redis comes back. */
  async start(): Promise<void> {
    this.redis.on('close', () => {
      if (!this.closed) this.down = true;
    });
    this.redis.on('ready', () => void this.reconnected());
    this.timer = setInterval(() => void this.beat().catch(this.onError), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    if (this.redis.status === 'ready') {
      this.runId = await this.serverRunId().catch(() => undefined);
      await this.beat().catch(this.onError);
    } else {
      this.down = true;
    }
  }

  register(target: ResyncTarget): void {
    this.targets.push(target);
  }

  /** True while Redis is unreachable or being rebuilt: admit only this instance's share. */
  get conservative(): boolean {
    if (this.down || this.redis.status !== 'ready') return true;
    const rebuild = this.rebuild;
    if (!rebuild) return false;
    if (this.now() >= rebuild.until) this.rebuild = undefined;
    return this.rebuild !== undefined;
  }

  /**
   * `conservative`, for one limit or budget: its figure of what was admitted while conservative
   * starts again at 0 with each new conservative period (each outage and rebuild).
   */
  conservativeFor(use: ConservativeUse): boolean {
    const conservative = this.conservative;
    if (conservative && !this.wasConservative) this.period += 1;
    this.wasConservative = conservative;
    if (use.period !== this.period) {
      use.period = this.period;
      use.conservativeUse = 0;
    }
    return conservative;
  }

  /** The conservative period now (new figures start in it). */
  get currentPeriod(): number {
    return this.period;
  }

  /** Instances seen at the last renewal (at least this one): the share of a limit each may use while conservative. */
  get liveCount(): number {
    return Math.max(1, this.live);
  }

  private async reconnected(): Promise<void> {
    if (this.closed || !this.down) return;
    this.down = false;
    try {
      const runId = await this.serverRunId();
      const restarted = this.runId !== undefined && runId !== this.runId;
      this.runId = runId;
      // Conservative until every instance known before the outage has written its state again.
      const waitingFor = new Map([...this.known].filter(([id]) => id !== this.id));
      this.rebuild = waitingFor.size > 0 ? { until: this.now() + this.leaseMs, waitingFor } : undefined;
      for (const target of this.targets) await target.resync(restarted);
      this.syncs += 1;
      await this.beat();
    } catch (error) {
      this.onError(error);
    }
  }

  /** Renews this instance's key and reads who else is there. */
  private async beat(): Promise<void> {
    if (this.closed || this.redis.status !== 'ready') return;
    const me = INSTANCE_KEY_PREFIX + this.id;
    const [, , members] = (await this.redis
      .multi()
      .set(me, String(this.syncs), 'PX', this.leaseMs)
      .sadd(INSTANCES, this.id)
      .smembers(INSTANCES)
      .exec())!.map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [unknown, unknown, string[]];
    const values = members.length === 0 ? [] : await this.redis.mget(members.map((id) => INSTANCE_KEY_PREFIX + id));
    const known = new Map<string, string>();
    const gone: string[] = [];
    members.forEach((id, i) => (values[i] === null ? gone.push(id) : known.set(id, values[i]!)));
    if (gone.length > 0) await this.redis.srem(INSTANCES, ...gone);
    this.known = known;
    this.live = known.size;
    const rebuild = this.rebuild;
    if (rebuild) {
      // Done when each instance known before is back with its value moved on (it has re-synced);
      // one that never comes back (dead, or Redis lost its key) is waited for until the lease has passed.
      for (const [id, value] of rebuild.waitingFor) if (known.has(id) && known.get(id) !== value) rebuild.waitingFor.delete(id);
      if (rebuild.waitingFor.size === 0) this.rebuild = undefined;
    }
  }

  private async serverRunId(): Promise<string | undefined> {
    const info = (await this.redis.info('server')) as string;
    return /run_id:(\w+)/.exec(info)?.[1];
  }

  /** Leaves at once (a clean stop): its holds stop counting now, not after the lease. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.redis.status !== 'ready') return;
    await this.redis.multi().del(INSTANCE_KEY_PREFIX + this.id).srem(INSTANCES, this.id).exec().catch(() => undefined);
  }
}
