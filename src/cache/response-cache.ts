import type { CacheConfig } from '../config/schema.js';
import type { Db } from '../db/connect.js';
import type { ApiKey } from '../keys/key-store.js';
import { CacheSwitches, type CachePolicy, type CacheSwitch } from './cache-policy.js';
import { CacheSettingsStore } from './cache-settings-store.js';
import { ResponseCacheStore, type CacheEntry, type CacheStore } from './cache-store.js';
import type { FillLeases } from './fill-leases.js';
import { MissCoalescer } from './miss-coalescer.js';
import { SemanticIndex } from './semantic-index.js';
import { DEFAULT_BUCKET_LIMIT, type SemanticQuestions } from './semantic-questions.js';
import { SharedFills } from './shared-fill.js';

const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const DEFAULT_SWEEP_S = 60;
/** Cosine similarity a stored question must reach (semantic mode): close paraphrases, not related questions. */
const DEFAULT_THRESHOLD = 0.95;
/** How long a miss waits for another instance filling the same entry (the fill lease's bound). */
const DEFAULT_FILL_WAIT_S = 30;

/** Running totals for /metrics (read at scrape time). */
export interface CacheCounts {
  hits: number;
  misses: number;
  bypasses: number;
  /** Misses served by an identical miss in flight (counted as hits too). */
  coalesced: number;
  /** Bytes answered from the cache, and bytes written to it. */
  bytesServed: number;
  bytesStored: number;
}

/**
 * The exact response cache (issue 32): the switches, the store, the counters and the background
 * sweep (expired entries out, the size cap kept) that never runs on a request's path.
 */
export class ResponseCache {
  readonly switches: CacheSwitches;
  readonly store: CacheStore;
  readonly counts: CacheCounts = { hits: 0, misses: 0, bypasses: 0, coalesced: 0, bytesServed: 0, bytesStored: 0 };
  readonly misses = new MissCoalescer();
  /** Writes in flight by entry id: looked up before the store, awaited before a purge. */
  private readonly writing = new Map<string, { entry: CacheEntry; done: Promise<void> }>();
  /** Semantic mode's embedding model, match bar and stored questions; undefined without `cache.semantic`. */
  readonly semantic: { embeddingModel: string; threshold: number; questions: SemanticQuestions } | undefined;
  /** Identical misses across the instances sharing the store; undefined where one instance owns it. */
  readonly fills: SharedFills | undefined;
  readonly hitCostFraction: number;
  readonly cachesToolCalls: boolean;
  readonly maxBytes: number;
  private readonly leases: FillLeases | undefined;
  private readonly settings: CacheSettingsStore;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    db: Db,
    private readonly config: CacheConfig | undefined,
    private readonly now: () => number,
    /** The database's own table unless given (the Redis store: redis-cache-store.ts). */
    store?: CacheStore,
  ) {
    this.switches = new CacheSwitches(config);
    this.store = store ?? new ResponseCacheStore(db);
    this.settings = new CacheSettingsStore(db);
    this.hitCostFraction = config?.hit_cost_fraction ?? 0;
    this.cachesToolCalls = config?.cache_tool_calls ?? false;
    this.maxBytes = config?.max_bytes ?? DEFAULT_MAX_BYTES;
    const semantic = config?.semantic;
    const shared = this.store.shared(semantic?.bucket_limit ?? DEFAULT_BUCKET_LIMIT);
    this.semantic = semantic && {
      embeddingModel: semantic.embedding_model,
      threshold: semantic.threshold ?? DEFAULT_THRESHOLD,
      questions: shared?.questions ?? new SemanticIndex(semantic.max_entries),
    };
    const waitMs = (config?.fill_wait_seconds ?? DEFAULT_FILL_WAIT_S) * 1000;
    this.fills = shared && new SharedFills(shared.leases, (id, scope) => this.lookup(id, scope), now, waitMs);
    this.leases = shared?.leases;
  }

  policyFor(key: ApiKey | undefined, model: string): CachePolicy | undefined {
    return this.switches.policyFor(key, model);
  }

  async lookup(id: string, scope: string): Promise<CacheEntry | undefined> {
    // An answer this instance is still writing is already its entry (read your own writes).
    const pending = this.writing.get(id)?.entry;
    if (pending && pending.scope === scope && pending.expires_at > this.now()) return pending;
    return this.store.get(id, scope, this.now());
  }

  /** Stores without making the answer wait: a failed write only costs a later miss. */
  put(entry: CacheEntry): void {
    this.counts.bytesStored += entry.bytes;
    const done = this.store.put(entry).catch(() => undefined);
    const write = { entry, done };
    this.writing.set(entry.id, write);
    void done.then(() => {
      if (this.writing.get(entry.id) === write) this.writing.delete(entry.id);
    });
  }

  /** When this instance's write of the entry has landed (at once when none is in flight). */
  landed(id: string): Promise<void> {
    return this.writing.get(id)?.done ?? Promise.resolve();
  }

  /** Purges once this instance's writes in flight have landed, so none of them comes back after it. */
  async purge(filter: { scope?: string | undefined; model?: string | undefined }): Promise<number> {
    await Promise.all([...this.writing.values()].map((w) => w.done));
    const removed = await this.store.purge(filter);
    await this.semantic?.questions.prune(this.now()).catch(() => undefined);
    return removed;
  }

  /** Reads the admin API's switches (every instance, each sweep: a change elsewhere lands within one interval). */
  async loadSwitches(): Promise<void> {
    this.switches.apply(await this.settings.list());
  }

  /** The admin API sets a switch: `*` for the global one, else a model id; null removes the override. */
  async setSwitch(target: string, value: CacheSwitch | null): Promise<void> {
    await this.settings.set(target, value, this.now());
    await this.loadSwitches();
  }

  async start(): Promise<void> {
    await this.loadSwitches();
    const every = (this.config?.sweep_interval_seconds ?? DEFAULT_SWEEP_S) * 1000;
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), every);
    this.timer.unref();
  }

  async sweep(): Promise<number> {
    await this.loadSwitches();
    const removed = await this.store.sweep(this.now(), this.maxBytes);
    // After the entries: questions of entries the cap just removed go in the same pass.
    await this.semantic?.questions.prune(this.now());
    await this.leases?.prune(this.now());
    return removed;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
