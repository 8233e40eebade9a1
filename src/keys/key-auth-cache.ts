import { isStoreUnavailable, storeUnavailable } from '../db/store-errors.js';
import type { ApiKey, KeyLookup } from './key-store.js';
import { digestsEqual, hashSecret } from './secrets.js';

/** What the store answers for a secret's hash: the stored digest found (or the presented one) and its key. */
export interface AuthRead {
  storedHash: string;
  key: ApiKey | null;
}

interface CacheEntry extends AuthRead {
  until: number;
}

const CACHE_TTL_MS = 1_000;
/**
 * A key in use is read again this long before its cached copy runs out, while requests go on
 * from the copy: a busy key never misses, and at c256 on PostgreSQL the second boundary no longer
 * sends a burst of identical reads (issue 36). The copy is never used past its TTL.
 */
const REFRESH_AHEAD_MS = 200;
/** While the database cannot be reached, keys seen this recently keep working from the cache (issue 13). */
const STALE_GRACE_MS = 15 * 60_000;
const CACHE_MAX = 10_000;

/**
 * The per-request key lookup: a short-lived cache keyed by the secret's hash, so the hot path
 * costs one SHA-256 and a map read. Unknown secrets are cached too (floods of bad keys stay
 * cheap); a change to a key drops its entries (`forget`, `invalidate`).
 */
export class KeyAuthCache {
  private readonly cache = new Map<string, CacheEntry>();
  /** One read per secret at a time: concurrent misses (and a refresh ahead) share it. */
  private readonly reading = new Map<string, Promise<CacheEntry>>();
  /** Moves on every invalidation: a read that began before one does not refill the cache. */
  private generation = 0;

  constructor(
    private readonly readByHash: (hash: string) => Promise<AuthRead>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A cached answer comes back without a promise (this runs on every request). */
  authenticate(secret: string): KeyLookup | Promise<KeyLookup> {
    const hash = hashSecret(secret);
    const now = this.now();
    const entry = this.cache.get(hash);
    if (entry && entry.until > now) {
      if (entry.until - now <= REFRESH_AHEAD_MS && !this.reading.has(hash)) this.read(hash).catch(() => undefined);
      return judgeKey(entry, hash, now);
    }
    return this.read(hash).then(
      (fresh) => judgeKey(fresh, hash, now),
      (error: unknown) => {
        // The database is down: a key seen recently is judged as it was then; anything else is a 503.
        if (entry && isStoreUnavailable(error) && now - entry.until < STALE_GRACE_MS) return judgeKey(entry, hash, now);
        throw isStoreUnavailable(error) ? storeUnavailable(error) : error;
      },
    );
  }

  /** A secret's hash now names a key: an earlier "unknown secret" answer for it goes. */
  dropSecret(hash: string): void {
    this.generation++;
    this.cache.delete(hash);
  }

  /** Drops cached lookups of one key (on change here, and from the invalidation bus). */
  forget(keyId: string): void {
    this.generation++;
    for (const [hash, entry] of this.cache) {
      if (entry.key?.id === keyId) this.cache.delete(hash);
    }
  }

  invalidate(): void {
    this.generation++;
    this.cache.clear();
  }

  /** The key row of a secret's hash, read once however many requests wait for it, and cached. */
  private read(hash: string): Promise<CacheEntry> {
    const pending = this.reading.get(hash);
    if (pending) return pending;
    const generation = this.generation;
    const reading = this.readByHash(hash)
      .then((found) => {
        const fresh = { ...found, until: this.now() + CACHE_TTL_MS };
        if (generation === this.generation) {
          if (this.cache.size >= CACHE_MAX) this.cache.clear();
          this.cache.set(hash, fresh);
        }
        return fresh;
      })
      .finally(() => this.reading.delete(hash));
    this.reading.set(hash, reading);
    return reading;
  }
}

function judgeKey(entry: AuthRead, hash: string, now: number): KeyLookup {
  const key = entry.key;
  if (!key || !digestsEqual(entry.storedHash, hash)) return { status: 'invalid' };
  return judgeKeyState(key, now);
}

/** Revoked, disabled (it or its owner) or expired, else usable: the same verdict by secret or by id. */
export function judgeKeyState(key: ApiKey, now: number): KeyLookup {
  if (key.revokedAt !== null) return { status: 'revoked' };
  if (key.disabledAt !== null) return { status: 'disabled' };
  if (key.expiresAt !== null && key.expiresAt <= now) return { status: 'expired' };
  return { status: 'ok', key };
}
