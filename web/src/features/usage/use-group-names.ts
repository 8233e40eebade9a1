import { useMemo } from 'react';
import type { ApiKey, User } from '../../lib/types';
import type { GroupBy } from './usage-group';

export interface GroupSpend {
  spent: number;
  budget: number | null;
}

/**
 * Readable names for the breakdown's key or user ids, and each key's and each person's whole spend
 * against their budget (a person's: their keys' together). Other groupings show their ids as they are.
 */
export function useGroupNames(group: GroupBy, keys: readonly ApiKey[] | undefined, users: readonly User[] | undefined) {
  const byKey = group === 'key' || group === 'key_model';
  const byUser = group === 'user' || group === 'user_model';

  const names = useMemo(() => {
    const map = new Map<string, string>();
    if (byKey) for (const k of keys ?? []) map.set(k.id, `${k.name} (${k.prefix}…)`);
    if (byUser) for (const u of users ?? []) map.set(u.id, u.email ?? u.name);
    return map;
  }, [byKey, byUser, keys, users]);

  const budgets = useMemo(() => {
    const map = new Map<string, GroupSpend>();
    const all = keys ?? [];
    if (byKey) for (const k of all) map.set(k.id, { spent: k.spent_usd ?? k.spent_month_usd, budget: k.budget_usd });
    if (byUser) {
      for (const u of users ?? []) {
        const spent = all.filter((k) => k.owner === u.id).reduce((sum, k) => sum + (k.spent_usd ?? 0), 0);
        map.set(u.id, { spent, budget: u.role === 'operator' ? null : u.budget_usd });
      }
    }
    return map;
  }, [byKey, byUser, keys, users]);

  return { names, budgets };
}
