import type { TierConfig } from '../config/schema.js';

type Tiers = Readonly<Record<string, TierConfig>> | undefined;

/**
 * Where tier `asked` allows more than tier `allowed` (issue 44 item 0): the first limit, model by
 * model and field by field, that is higher (or absent, no limit) in `asked`; undefined when every
 * limit of `asked` is within `allowed`'s. Null is the tier a key without one is in (`default`); a
 * tier that does not exist has no limits. Tiers are ordered only this way: no names are ranked.
 */
export function tierExcess(asked: string | null, allowed: string | null, tiers: Tiers): string | undefined {
  const a = tiers?.[asked ?? 'default'];
  const b = tiers?.[allowed ?? 'default'];
  const models = new Set(['default', ...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  for (const model of models) {
    for (const field of ['rpm', 'tpm'] as const) {
      const limitOf = (tier: TierConfig | undefined) => tier?.[model]?.[field] ?? tier?.default?.[field] ?? Number.POSITIVE_INFINITY;
      if (limitOf(a) > limitOf(b)) return model === 'default' ? field : `${field} of ${model}`;
    }
  }
  return undefined;
}
