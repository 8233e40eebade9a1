import type { Db } from '../../db/connect.js';
import type { ApiKey } from '../../keys/key-store.js';
import type { UsageRecorder } from '../../usage/usage-recorder.js';
import { keyDaysOf } from '../../usage/key-spend.js';
import { toKeyView } from './key-input.js';
import type { KnownModel } from './known-models.js';
import type { KeyView } from './key-schemas.js';
import type { LimitedWindow } from '../../ratelimit/rate-limited-keys.js';

/** Keys whose rpm/tpm window is used up now (plugins/rate-limit.ts notes them). */
export type ExhaustedOf = (keyIds: readonly string[]) => Promise<Map<string, LimitedWindow>>;

/** What admission knows of keys right now (issue 35): windows used up, budget held by requests in progress. */
export interface AdmissionNow {
  exhaustedOf: ExhaustedOf;
  heldUsd?: ((keyId: string) => number) | undefined;
}

/** What a key has done: read from the usage ledger when keys are shown, never tracked per request. */
export interface KeyActivity {
  lastUsedAt: number | null;
  spentMonthUsd: number;
  /** Everything the key has spent: what its budget counts (issue 21: the console shows one against the other). */
  spentUsd: number;
}

/** The first millisecond of the current calendar month, UTC. */
export function monthStartUtc(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/**
 * last_used_at, this month's spend and the whole spend of the given keys, from the daily per-key
 * rollups (issue 22): per key, the last time of its latest day (one index seek), the sum of this
 * month's days (at most 31 days × outcomes rows) and of all its days. No write on the request path: a request's event reaches the
 * rollups with the usage recorder's next batch (flushed before this is read).
 */
export async function keyActivity(db: Db, keyIds: readonly string[], monthStart: number): Promise<Map<string, KeyActivity>> {
  const result = new Map<string, KeyActivity>();
  if (keyIds.length === 0) return result;
  // A long list of ids would hit the stores' bound-parameter limits; then read them all.
  const filterIds = keyIds.length <= 500;
  const rows = await db
    .selectFrom('api_keys')
    .select((eb) => [
      'api_keys.id',
      keyDaysOf(eb).select('r.last_at').orderBy('r.bucket', 'desc').orderBy('r.last_at', 'desc').limit(1).as('last_used_at'),
      keyDaysOf(eb)
        .select((u) => u.fn.sum<number | string | null>('r.cost_usd').as('s'))
        .where('r.bucket', '>=', monthStart)
        .as('spent_month'),
      keyDaysOf(eb).select((u) => u.fn.sum<number | string | null>('r.cost_usd').as('s')).as('spent'),
    ])
    .$if(filterIds, (qb) => qb.where('api_keys.id', 'in', keyIds))
    .execute();
  for (const row of rows) {
    result.set(row.id, {
      lastUsedAt: row.last_used_at === null || row.last_used_at === undefined ? null : Number(row.last_used_at),
      spentMonthUsd: Math.round(Number(row.spent_month ?? 0) * 1e9) / 1e9,
      spentUsd: Math.round(Number(row.spent ?? 0) * 1e9) / 1e9,
    });
  }
  return result;
}

/** Builds KeyViews with owner, owner_email, last_used_at and spent_month_usd (issue 12). */
export class KeyViews {
  constructor(
    private readonly db: Db,
    private readonly usage: UsageRecorder,
    private readonly now: () => number,
    /** Model lists show only models the gateway still knows (issue 35). */
    private readonly known?: KnownModel,
    private readonly admission?: AdmissionNow,
  ) {}

  /** `withSpend`: each key's spend so far too (the lists and the single-key GET show it against the budget). */
  async many(keys: readonly ApiKey[], { withSpend = false }: { withSpend?: boolean } = {}): Promise<KeyView[]> {
    const at = this.now();
    // What this instance has counted but not yet written belongs in the answer.
    await this.usage.flush();
    const owners = [...new Set(keys.map((k) => k.owner))];
    const [activity, emails, exhausted] = await Promise.all([
      keyActivity(this.db, keys.map((k) => k.id), monthStartUtc(at)),
      owners.length === 0 ? [] : this.db.selectFrom('users').select(['id', 'email']).where('id', 'in', owners).execute(),
      // What is true right now goes with the spend (lists and the single-key GET), not with a create's answer.
      withSpend ? this.admission?.exhaustedOf(keys.map((k) => k.id)) : undefined,
    ]);
    const emailOf = new Map(emails.map((u) => [u.id, u.email]));
    return keys.map((key) => {
      const done = activity.get(key.id);
      return {
        ...toKeyView(key, at, this.known),
        owner: key.owner,
        owner_email: emailOf.get(key.owner) ?? null,
        last_used_at: done?.lastUsedAt == null ? null : new Date(done.lastUsedAt).toISOString(),
        spent_month_usd: done?.spentMonthUsd ?? 0,
        ...(withSpend ? { spent_usd: done?.spentUsd ?? 0 } : {}),
        ...(exhausted ? { rate_limited: rateLimitedView(exhausted.get(key.id)) } : {}),
        ...(withSpend && key.budgetUsd !== null && this.admission?.heldUsd ? { held_usd: Math.round(this.admission.heldUsd(key.id) * 1e9) / 1e9 } : {}),
      };
    });
  }

  async one(key: ApiKey, options: { withSpend?: boolean } = {}): Promise<KeyView> {
    return (await this.many([key], options))[0]!;
  }
}

const rateLimitedView = (window: LimitedWindow | undefined): KeyView['rate_limited'] =>
  window ? { kind: window.kind, model: window.model, limit: window.limit, until: new Date(window.until).toISOString() } : null;

/** The key views' window on admission (plugins/rate-limit.ts). */
export const admissionNow = (admission: { rateLimited: { of: ExhaustedOf }; holds: { heldUsd?(keyId: string): number } }): AdmissionNow => ({
  exhaustedOf: (ids) => admission.rateLimited.of(ids),
  heldUsd: admission.holds.heldUsd ? (id) => admission.holds.heldUsd!(id) : undefined,
});
