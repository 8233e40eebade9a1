import type { TierConfig } from '../config/schema.js';
import type { ApiKey } from '../keys/key-store.js';

/** Per-minute limits that apply to one key on one model; null is no limit. */
export interface EffectiveLimits {
  rpm: number | null;
  tpm: number | null;
}

/**
 * The key's own rpm/tpm win; otherwise its tier's entry for the model, else the tier's `default`
 * entry. A key without a tier is in the tier named `default` when one is configured. Limits
 * count per key and model: a key with rpm 5 may send 5 requests a minute to each model.
 */
export function limitsFor(key: ApiKey, model: string, tiers: Readonly<Record<string, TierConfig>> | undefined): EffectiveLimits {
  const tier = tiers?.[key.tier ?? 'default'];
  const fromTier = tier?.[model] ?? tier?.default;
  return { rpm: key.rpm ?? fromTier?.rpm ?? null, tpm: key.tpm ?? fromTier?.tpm ?? null };
}
