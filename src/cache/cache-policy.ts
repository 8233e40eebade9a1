import type { CacheConfig } from '../config/schema.js';
import type { ApiKey, CacheMode } from '../keys/key-store.js';

/** Whether a request is cached, for how long, and whose entries it reads and writes. */
export interface CachePolicy {
  ttlS: number;
  /** `user:<id>`, `key:<id>` (a key with no owning user) or `shared:<name>` (operator-set). */
  scope: string;
  /** What a hit costs as a share of the answer's price: the model's switch, else the global one. */
  hitCostFraction: number;
  /** exact, or semantic: after an exact miss, a similar last user message in the same context. */
  mode: CacheMode;
}

/** One switch: the file's or the admin API's (which wins). */
export interface CacheSwitch {
  enabled: boolean;
  ttlS: number | null;
  /** What a hit costs as a share of the answer's price; null: the next switch's (global: the file's). */
  hitCostFraction?: number | null | undefined;
  /** exact or semantic; null: the next switch's. */
  mode?: CacheMode | null | undefined;
}

export const DEFAULT_TTL_S = 3600;

/** The built-in operator owns keys made by the admin API: those keys are not one tenant, so each is its own scope. */
const SHARED_OWNER = 'operator';

/**
 * The switches in force: the key's wins over the model's, the model's over the global one. The
 * request path asks `policyFor`; with everything off that is two property reads and a map miss.
 */
export class CacheSwitches {
  private global: CacheSwitch | undefined;
  private models = new Map<string, CacheSwitch>();
  /** Anything but a key's own switch turns caching on somewhere. */
  private isAnyOn = false;

  constructor(private readonly file: CacheConfig | undefined) {
    this.apply([]);
  }

  /** The admin API's switches (`*` global, else a model id) laid over the file's. */
  apply(overrides: ReadonlyArray<{ target: string } & CacheSwitch>): void {
    const file = this.file;
    this.global = file?.enabled === undefined ? undefined : { enabled: file.enabled, ttlS: file.ttl_seconds ?? null, hitCostFraction: null, mode: file.mode ?? null };
    this.models = new Map(Object.entries(file?.models ?? {}).map(([model, s]) => [model, { enabled: s.enabled, ttlS: s.ttl_seconds ?? null, hitCostFraction: null, mode: s.mode ?? null }]));
    for (const o of overrides) {
      const value = { enabled: o.enabled, ttlS: o.ttlS, hitCostFraction: o.hitCostFraction ?? null, mode: o.mode ?? null };
      if (o.target === '*') this.global = value;
      else this.models.set(o.target, value);
    }
    this.isAnyOn = this.global?.enabled === true || [...this.models.values()].some((s) => s.enabled);
  }

  policyFor(key: ApiKey | undefined, model: string): CachePolicy | undefined {
    const own = key?.cacheEnabled;
    if (own === false || (own !== true && !this.isAnyOn)) return undefined;
    const forModel = this.models.get(model);
    const enabled = own ?? forModel?.enabled ?? this.global?.enabled ?? false;
    if (!enabled || !key) return undefined;
    const ttlS = key.cacheTtlS ?? forModel?.ttlS ?? this.global?.ttlS ?? this.file?.ttl_seconds ?? DEFAULT_TTL_S;
    const hitCostFraction = forModel?.hitCostFraction ?? this.global?.hitCostFraction ?? this.file?.hit_cost_fraction ?? 0;
    const mode = key.cacheMode ?? forModel?.mode ?? this.global?.mode ?? this.file?.mode ?? 'exact';
    return { ttlS, scope: scopeOf(key), hitCostFraction, mode };
  }

  view(): { global: CacheSwitch | null; models: Record<string, CacheSwitch> } {
    return { global: this.global ?? null, models: Object.fromEntries(this.models) };
  }
}

/** Whose entries a key reads and writes: its operator-set shared namespace, its user's, or its own. */
export function scopeOf(key: Pick<ApiKey, 'id' | 'owner' | 'cacheNamespace'>): string {
  if (key.cacheNamespace) return `shared:${key.cacheNamespace}`;
  return key.owner && key.owner !== SHARED_OWNER ? `user:${key.owner}` : `key:${key.id}`;
}
