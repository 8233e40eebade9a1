import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/connect.js';
import type { Database } from '../db/schema.js';

/**
 * What keys have spent, from the daily per-key rollups (issue 22): a key's whole history is one
 * row per day and outcome it was used, so a lifetime sum reads a few hundred rows, however many
 * requests the key made, and it stays right after the events themselves expire.
 */
export const keyDays = (db: Db) => db.selectFrom('usage_rollups as r').where('r.period', '=', 'day').where('r.grain', '=', 'key');

/** The same rows, as a subquery of a query on `api_keys` (its `id` correlates them). */
export const keyDaysOf = (eb: ExpressionBuilder<Database, 'api_keys'>) =>
  eb.selectFrom('usage_rollups as r').where('r.period', '=', 'day').where('r.grain', '=', 'key').whereRef('r.key_id', '=', 'api_keys.id');

/** USD the key has spent, ever. */
export async function keySpentUsd(db: Db, keyId: string): Promise<number> {
  const row = await keyDays(db)
    .select((eb) => eb.fn.sum<number | string | null>('r.cost_usd').as('usd'))
    .where('r.key_id', '=', keyId)
    .executeTakeFirst();
  return Number(row?.usd ?? 0);
}

/** USD the user's revoked keys spent, ever. */
export async function revokedKeysSpentUsd(db: Db, userId: string): Promise<number> {
  const row = await keyDays(db)
    .select((eb) => eb.fn.sum<number | string | null>('r.cost_usd').as('usd'))
    .where('r.key_id', 'in', (sub) => sub.selectFrom('api_keys as revoked').select('revoked.id').where('revoked.owner', '=', userId).where('revoked.revoked_at', 'is not', null))
    .executeTakeFirst();
  return Number(row?.usd ?? 0);
}
