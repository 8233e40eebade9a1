/**
 * Key secrets created or regenerated in this browser tab, for the playground. Memory only: never
 * localStorage, sessionStorage or the URL; a reload forgets them, as the one-time display promises.
 */
export interface TabSecret {
  keyId: string;
  name: string;
  secret: string;
}

const secrets = new Map<string, TabSecret>();

export const rememberSecret = (entry: TabSecret): void => void secrets.set(entry.keyId, entry);
export const forgetSecret = (keyId: string): void => void secrets.delete(keyId);
export const tabSecrets = (): TabSecret[] => [...secrets.values()];
