import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** API keys are 32 random bytes, base64url, behind a recognisable prefix. */
export const KEY_PREFIX = 'sk-gw-';

export const generateSecret = (prefix = KEY_PREFIX): string => prefix + randomBytes(32).toString('base64url');

/** SHA-256, hex (the one-shot `crypto.hash`: no Hash object per request). */
export const hashSecret = (secret: string): string => hash('sha256', secret, 'hex');

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What an operator sees of a secret: enough to recognise it, useless to an attacker. */
export const displayPrefix = (secret: string): string => secret.slice(0, KEY_PREFIX.length + 6);
