import type { TierConfig } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import type { KeyPatch } from '../keys/key-store.js';
import type { OperatorLimits } from '../keys/operator-limits.js';
import { tierExcess } from '../ratelimit/tier-order.js';

const refuse = (field: string, message: string): GatewayError => new GatewayError('GW_ALLOWANCE_EXCEEDED', `'${field}': ${message}`, { param: field });

/**
 * Keeps a key holder's change within what an operator set on the key (issue 44 item 0): each limit
 * may be lowered, never raised or removed (null), and the cache an operator turned off or made
 * exact stays so. The tier is a limit too: a holder may pick only a tier whose every limit is
 * within the operator's tier for the key (or, without one, the default tier), so a key holder
 * creating a key is bounded the same way. Refusals are 403s naming the field, never other tiers.
 */
export function fitKeyToOperatorLimits(patch: KeyPatch, bounds: OperatorLimits | null | undefined, tiers: Readonly<Record<string, TierConfig>> | undefined): void {
  const set = bounds ?? {};
  if (patch.tier !== undefined) {
    const excess = tierExcess(patch.tier, set.tier ?? null, tiers);
    if (excess !== undefined) throw refuse('tier', `${patch.tier === null ? 'the default tier' : `tier '${patch.tier}'`} allows more (${excess}) than this key may have.`);
  }
  const atMost = (field: string, asked: number | null | undefined, bound: number | undefined, show: (n: number) => string = String) => {
    if (bound === undefined || asked === undefined) return;
    if (asked === null) throw refuse(field, `your operator set ${show(bound)} on this key; you may lower it, not remove it.`);
    if (asked > bound) throw refuse(field, `at most ${show(bound)}, as your operator set on this key.`);
  };
  atMost('rpm', patch.rpm, set.rpm);
  atMost('tpm', patch.tpm, set.tpm);
  atMost('max_parallel_requests', patch.maxParallel, set.maxParallel);
  atMost('budget_usd', patch.budgetUsd, set.budgetUsd, (usd) => `${usd} USD`);
  atMost('expires_at', patch.expiresAt, set.expiresAt, (ms) => new Date(ms).toISOString());
  atMost('cache_ttl_seconds', patch.cacheTtlS, set.cacheTtlS);
  if (set.cacheOff && patch.cacheEnabled !== undefined && patch.cacheEnabled !== false) throw refuse('cache_enabled', 'your operator turned the cache off for this key.');
  if (set.cacheExact && patch.cacheMode !== undefined && patch.cacheMode !== 'exact') throw refuse('cache_mode', 'your operator set exact matching for this key.');
  const within = (field: 'models' | 'endpoints', asked: readonly string[] | null | undefined, bound: readonly string[] | undefined) => {
    if (bound === undefined || asked === undefined) return;
    if (asked === null) throw refuse(field, `your operator gave this key ${bound.join(', ')}; list them instead of null (all).`);
    const outside = asked.filter((value) => !bound.includes(value));
    if (outside.length > 0) throw refuse(field, `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} not among what your operator gave this key (${bound.join(', ')}).`);
  };
  within('models', patch.models, set.models);
  within('endpoints', patch.endpoints, set.endpoints);
}
