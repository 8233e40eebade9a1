import type { Db } from '../db/connect.js';
import { revokedKeysSpentUsd } from '../usage/key-spend.js';
import { GatewayError } from '../errors.js';
import type { KeyPatch } from '../keys/key-store.js';
import type { User } from './user-store.js';

/** What a user's other keys already claim of their budget. */
export interface BudgetClaims {
  /** Sum of budget_usd over the user's live keys other than the one being changed. */
  otherLiveBudgets: number;
  /** What the user's revoked keys spent: money gone, whatever their budgets said. */
  revokedSpent: number;
}

export async function budgetClaims(db: Db, userId: string, exceptKeyId?: string): Promise<BudgetClaims> {
  const [live, revoked] = await Promise.all([
    db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.sum<number | string | null>('budget_usd').as('usd'))
      .where('owner', '=', userId)
      .where('revoked_at', 'is', null)
      .$if(exceptKeyId !== undefined, (qb) => qb.where('id', '!=', exceptKeyId!))
      .executeTakeFirst(),
    revokedKeysSpentUsd(db, userId),
  ]);
  return { otherLiveBudgets: Number(live?.usd ?? 0), revokedSpent: revoked };
}

const refuse = (field: string, message: string): GatewayError => new GatewayError('GW_ALLOWANCE_EXCEEDED', `'${field}': ${message}`, { param: field });

/**
 * Keeps a key holder's key within what an operator allows them (issue 12). For a create, fields
 * left out take the user's allowance (their models, families, rpm/tpm caps); a budget must be
 * given when the user has one. Anything beyond the allowance is a 403 naming the field.
 * Operators have no allowance: everything they ask for passes.
 *
 * The budget rule keeps the user's possible spend under their budget: the budgets of their live
 * keys (a key can spend at most its budget) plus what their revoked keys actually spent.
 */
export function fitKeyToAllowance(user: User, patch: KeyPatch, mode: 'create' | 'patch', claims: BudgetClaims | undefined): KeyPatch {
  if (user.role === 'operator') return patch;
  const fitted: KeyPatch = { ...patch };
  const creating = mode === 'create';

  const fitList = <T extends string>(field: 'models' | 'endpoints', allowed: readonly T[] | null, asked: readonly T[] | null | undefined) => {
    if (allowed === null) return;
    if (asked === undefined) {
      if (creating) fitted[field] = [...allowed] as never;
      return;
    }
    if (asked === null) throw refuse(field, `your account may grant only ${allowed.join(', ')}; list them instead of null (all).`);
    const outside = asked.filter((v) => !allowed.includes(v));
    if (outside.length > 0) throw refuse(field, `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} not in your allowance (${allowed.join(', ')}).`);
  };
  fitList('models', user.models, patch.models);
  fitList('endpoints', user.families, patch.endpoints);

  const fitCap = (field: 'rpm' | 'tpm', cap: number | null) => {
    if (cap === null) return;
    const asked = patch[field];
    if (asked === undefined) {
      if (creating) fitted[field] = cap;
      return;
    }
    if (asked === null || asked > cap) throw refuse(field, `at most ${cap} for your account.`);
  };
  fitCap('rpm', user.rpm);
  fitCap('tpm', user.tpm);

  if (user.budgetUsd !== null && (creating || patch.budgetUsd !== undefined)) {
    const claimed = (claims?.otherLiveBudgets ?? 0) + (claims?.revokedSpent ?? 0);
    const left = Math.max(0, Math.round((user.budgetUsd - claimed) * 1e6) / 1e6);
    const asked = patch.budgetUsd;
    if (asked === undefined || asked === null) throw refuse('budget_usd', `required: your account has a budget of ${user.budgetUsd} USD, of which ${left} USD is not yet given to keys.`);
    if (asked > left + 1e-9) throw refuse('budget_usd', `at most ${left} USD: your account's budget is ${user.budgetUsd} USD and your other keys claim ${Math.round(claimed * 1e6) / 1e6} USD.`);
  }
  return fitted;
}
