import type { Db } from '../db/connect.js';
import type { KeyStore } from './key-store.js';
import { digestsEqual, generateSecret, hashSecret } from './secrets.js';

export const ADMIN_TOKEN_SETTING = 'admin_token_sha256';
/** The id of the key GATEWAY_BOOTSTRAP_KEY made, so that changing the variable retires it. */
export const BOOTSTRAP_KEY_SETTING = 'bootstrap_key_id';

/**
 * GATEWAY_BOOTSTRAP_KEY names a key that must exist with access to everything. Changing the
 * variable retires the key the previous value made (revoked: the old secret stops working), so
 * rotating it is one restart (issue 15). Without it, an empty database gets one generated key,
 * printed once.
 */
export async function ensureBootstrapKey(keys: KeyStore, secret: string | undefined, announce: (line: string) => void, db: Db): Promise<void> {
  if (secret) {
    const current = (await keys.findBySecretHash(hashSecret(secret))) ?? (await keys.create({ name: 'bootstrap', secret })).key;
    await retirePreviousBootstrapKey(db, keys, current.id, announce);
    return;
  }
  if (await keys.hasAnyKey()) return;
  const created = await keys.create({ name: 'first-start' });
  announce(`API key (shown once, store it now): ${created.secret}`);
}

async function retirePreviousBootstrapKey(db: Db, keys: KeyStore, currentId: string, announce: (line: string) => void): Promise<void> {
  const recorded = await db.selectFrom('settings').select('value').where('name', '=', BOOTSTRAP_KEY_SETTING).executeTakeFirst();
  if (recorded?.value === currentId) return;
  // Stores from before this setting: the live keys the variable made are the operator's keys named 'bootstrap'.
  const previous = recorded ? [recorded.value] : (await keys.list({ owner: 'operator' })).filter((k) => k.name === 'bootstrap' && k.revokedAt === null && k.id !== currentId).map((k) => k.id);
  for (const id of previous) {
    if (id !== currentId && (await keys.revoke(id))) announce(`GATEWAY_BOOTSTRAP_KEY changed: the previous bootstrap key (${id}) is revoked`);
  }
  if (recorded) await db.updateTable('settings').set({ value: currentId }).where('name', '=', BOOTSTRAP_KEY_SETTING).execute();
  else await db.insertInto('settings').values({ name: BOOTSTRAP_KEY_SETTING, value: currentId }).execute();
}

/**
 * A new admin token, stored hashed, returned once (`gateway admin rotate-token`). Running
 * instances honour it within seconds (their verdict cache, admin-auth.ts); console sessions
 * signed in with the old token end.
 */
export async function rotateAdminToken(db: Db): Promise<string> {
  const token = generateSecret('gwadm-');
  await storeAdminTokenHash(db, hashSecret(token));
  return token;
}

async function storeAdminTokenHash(db: Db, hash: string): Promise<void> {
  const existing = await db.selectFrom('settings').select('value').where('name', '=', ADMIN_TOKEN_SETTING).executeTakeFirst();
  if (existing) await db.updateTable('settings').set({ value: hash }).where('name', '=', ADMIN_TOKEN_SETTING).execute();
  else await db.insertInto('settings').values({ name: ADMIN_TOKEN_SETTING, value: hash }).execute();
}

/**
 * The admin token is stored hashed in `settings`. GATEWAY_ADMIN_TOKEN, when set, is made the
 * token at every start (replacing any other, a rotated one included); unset, a token is generated
 * on the first start and printed once.
 */
export async function ensureAdminToken(db: Db, token: string | undefined, announce: (line: string) => void): Promise<void> {
  const existing = await db.selectFrom('settings').select('value').where('name', '=', ADMIN_TOKEN_SETTING).executeTakeFirst();
  if (token) {
    const hash = hashSecret(token);
    if (existing?.value !== hash) await storeAdminTokenHash(db, hash);
    return;
  }
  if (existing) return;
  const generated = generateSecret('gwadm-');
  await db.insertInto('settings').values({ name: ADMIN_TOKEN_SETTING, value: hashSecret(generated) }).execute();
  announce(`Admin token (shown once, store it now): ${generated}`);
}

export async function verifyAdminToken(db: Db, presented: string): Promise<boolean> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', ADMIN_TOKEN_SETTING).executeTakeFirst();
  return row !== undefined && digestsEqual(row.value, hashSecret(presented));
}
