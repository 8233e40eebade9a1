import type { Db } from '../db/connect.js';
import type { KeyStore } from './key-store.js';
import { digestsEqual, generateSecret, hashSecret } from './secrets.js';

export const ADMIN_TOKEN_SETTING = 'admin_token_sha256';

/**
 * GATEWAY_BOOTSTRAP_KEY names a key that must exist with access to everything. Without it, an
 * empty database gets one generated key, printed once.
 */
export async function ensureBootstrapKey(keys: KeyStore, secret: string | undefined, announce: (line: string) => void): Promise<void> {
  if (secret) {
    if (!(await keys.findBySecretHash(hashSecret(secret)))) await keys.create({ name: 'bootstrap', secret });
    return;
  }
  if (await keys.hasAnyKey()) return;
  const created = await keys.create({ name: 'first-start' });
  announce(`API key (shown once, store it now): ${created.secret}`);
}

/** The admin token is stored hashed in `settings`; GATEWAY_ADMIN_TOKEN replaces it. */
export async function ensureAdminToken(db: Db, token: string | undefined, announce: (line: string) => void): Promise<void> {
  const existing = await db.selectFrom('settings').select('value').where('name', '=', ADMIN_TOKEN_SETTING).executeTakeFirst();
  if (token) {
    const hash = hashSecret(token);
    if (existing?.value === hash) return;
    if (existing) await db.updateTable('settings').set({ value: hash }).where('name', '=', ADMIN_TOKEN_SETTING).execute();
    else await db.insertInto('settings').values({ name: ADMIN_TOKEN_SETTING, value: hash }).execute();
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
