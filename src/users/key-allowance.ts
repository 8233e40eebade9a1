import { sql } from 'kysely';
import type { Db } from '../db/connect.js';
import { keyDaysOf, revokedKeysSpentUsd } from '../usage/key-spend.js';
import { dialectOf } from '../db/dialect.js';
import { GatewayError } from '../errors.js';
import type { KeyPatch } from '../keys/key-store.js';
import type { User } from './user-store.js';

/** What a user's other keys already claim of their budget. */
export interface BudgetClaims {
  /**
   * Over the user's live keys other than the one being changed: each key's budget, or what it
   * has spent when that is more (issue 23: a spent key whose budget was lowered to 0 still spent).
   */
  otherLiveBudgets: number;
  /** What the user's revoked keys spent: money gone, whatever their budgets said. */
  revokedSpent: number;
}

export async function budgetClaims(db: Db, userId: string, exceptKeyId?: string): Promise<BudgetClaims> {
  const [live, revoked] = await Promise.all([
    db
      .selectFrom('api_keys')
      .select((eb) => ['api_keys.budget_usd', keyDaysOf(eb).select((r) => r.fn.sum<number | string | null>('r.cost_usd').as('s')).as('spent')])
      .where('api_keys.owner', '=', userId)
      .where('api_keys.revoked_at', 'is', null)
      .$if(exceptKeyId !== undefined, (qb) => qb.where('api_keys.id', '!=', exceptKeyId!))
      .execute(),
    revokedKeysSpentUsd(db, userId),
  ]);
  // A live key claims the larger of its budget and what it spent (issue 23 item 2): lowering a spent key's budget frees nothing.
  const otherLiveBudgets = live.reduce((sum, key) => sum + Math.max(Number(key.budget_usd ?? 0), Number(key.spent ?? 0)), 0);
  return { otherLiveBudgets, revokedSpent: revoked };
}

/**
 * Runs an allowance check and the key write it guards as one step (issue 23 item 3): on
 * PostgreSQL one transaction that first locks the user's row (`SELECT … FOR UPDATE`), so parallel
 * creations by one user, on any instance, check one after another; on SQLite one `BEGIN IMMEDIATE`
 * transaction, which holds the database's write lock (other processes of a GATEWAY_WORKERS
 * gateway wait) while Kysely's one connection keeps this process's other queries out.
 */
export async function withUserLocked<T>(db: Db, userId: string, fn: (trx: Db) => Promise<T>): Promise<T> {
  if (dialectOf(db) === 'postgres') {
    return db.transaction().execute(async (trx) => {
      await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
      return fn(trx);
    });
  }
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await fn(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}

const refuse = (field: string, message: string): GatewayError => new GatewayError('GW_ALLOWANCE_EXCEEDED', `'${field}': ${message}`, { param: field });

/**
 * Keeps a key holder's key within what an operator allows them (issue 12). For a create, fields
 * left out take the user's allowance (their models, families, rpm/tpm caps); a budget must be
 * given when the user has one. Anything beyond the allowance is a 403 naming the field.
 * Operators have no allowance: everything they ask for passes.
 *
 * The budget rule keeps the user's possible spend under their budget: over their live keys, the
 * larger of each key's budget (a key can spend at most its budget) and what it has spent, plus
 * what their revoked keys actually spent.
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
