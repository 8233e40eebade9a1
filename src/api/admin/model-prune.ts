import type { KeyStore } from '../../keys/key-store.js';
import type { UserStore } from '../../users/user-store.js';

/** How many allowances and keys named a deleted model and no longer do. */
export interface PruneCount {
  users: number;
  keys: number;
}

/**
 * Takes a deleted model out of every user's allowance and every live key's model list (issue 35),
 * when the operator asks for it on delete. A list that named only this model becomes empty: it
 * grants nothing, as before the model existed (never null, which would mean "every model").
 */
export async function pruneDeletedModel(id: string, users: UserStore, keys: KeyStore): Promise<PruneCount> {
  const count: PruneCount = { users: 0, keys: 0 };
  for (const user of await users.list()) {
    if (!user.models?.includes(id)) continue;
    await users.update(user.id, { models: user.models.filter((model) => model !== id) });
    count.users++;
  }
  for (const key of await keys.list()) {
    if (key.revokedAt !== null || !key.models?.includes(id)) continue;
    // update() announces the change, so every instance drops the key from its cache.
    await keys.update(key.id, { models: key.models.filter((model) => model !== id) });
    count.keys++;
  }
  return count;
}
