import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connect.js';
import type { ApiKeyTable } from '../db/schema.js';
import type { EndpointFamily } from '../catalog/models.js';
import { digestsEqual, displayPrefix, generateSecret, hashSecret } from './secrets.js';

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  models: readonly string[] | null;
  endpoints: readonly EndpointFamily[] | null;
  tier: string | null;
  rpm: number | null;
  tpm: number | null;
  budgetUsd: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}

export interface CreateKeyInput {
  name: string;
  /** Use this exact secret (GATEWAY_BOOTSTRAP_KEY); otherwise a random one is made. */
  secret?: string;
  models?: readonly string[] | null;
  endpoints?: readonly EndpointFamily[] | null;
  tier?: string | null;
  rpm?: number | null;
  tpm?: number | null;
  budgetUsd?: number | null;
  expiresAt?: number | null;
}

export type KeyLookup = { status: 'ok'; key: ApiKey } | { status: 'invalid' | 'revoked' | 'expired' };

interface CacheEntry {
  /** The stored digest of the key found (or the presented one when none was). */
  storedHash: string;
  key: ApiKey | null;
  until: number;
}

const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 10_000;

/**
 * API keys, stored hashed. Lookups go through a short-lived cache keyed by the secret's hash so
 * the hot path costs one SHA-256 and a map read; `invalidate` drops entries when a key changes.
 */
export class KeyStore {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    /** Called after a key is created, changed or revoked (other instances drop their caches). */
    private readonly onChange: (keyId: string) => void = () => undefined,
  ) {}

  async create(input: CreateKeyInput): Promise<{ key: ApiKey; secret: string }> {
    const secret = input.secret ?? generateSecret();
    const row: ApiKeyTable = {
      id: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      name: input.name,
      prefix: displayPrefix(secret),
      secret_hash: hashSecret(secret),
      models: input.models ? JSON.stringify(input.models) : null,
      endpoints: input.endpoints ? JSON.stringify(input.endpoints) : null,
      tier: input.tier ?? null,
      rpm: input.rpm ?? null,
      tpm: input.tpm ?? null,
      budget_usd: input.budgetUsd ?? null,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      created_at: this.now(),
    };
    await this.db.insertInto('api_keys').values(row).execute();
    this.cache.delete(row.secret_hash);
    this.onChange(row.id);
    return { key: toApiKey(row), secret };
  }

  async findBySecretHash(hash: string): Promise<ApiKey | undefined> {
    const row = await this.findRow(hash);
    return row ? toApiKey(row) : undefined;
  }

  private findRow(hash: string): Promise<ApiKeyTable | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('secret_hash', '=', hash).executeTakeFirst();
  }

  async hasAnyKey(): Promise<boolean> {
    return (await this.db.selectFrom('api_keys').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  async list(): Promise<ApiKey[]> {
    const rows = await this.db.selectFrom('api_keys').selectAll().orderBy('created_at').execute();
    return rows.map(toApiKey);
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toApiKey(row) : undefined;
  }

  /** Revokes by id or by the displayed prefix; returns whether a live key was revoked. */
  async revoke(idOrPrefix: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: this.now() })
      .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    this.cache.clear();
    const revoked = Number(result.numUpdatedRows) > 0;
    if (revoked) this.onChange(idOrPrefix);
    return revoked;
  }

  /** Authenticates a presented secret. Unknown secrets are cached too, so floods of bad keys stay cheap. */
  async authenticate(secret: string): Promise<KeyLookup> {
    const hash = hashSecret(secret);
    const now = this.now();
    let entry = this.cache.get(hash);
    if (!entry || entry.until <= now) {
      const row = await this.findRow(hash);
      entry = { storedHash: row?.secret_hash ?? hash, key: row ? toApiKey(row) : null, until: now + CACHE_TTL_MS };
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(hash, entry);
    }
    const key = entry.key;
    if (!key || !digestsEqual(entry.storedHash, hash)) return { status: 'invalid' };
    if (key.revokedAt !== null) return { status: 'revoked' };
    if (key.expiresAt !== null && key.expiresAt <= now) return { status: 'expired' };
    return { status: 'ok', key };
  }

  invalidate(): void {
    this.cache.clear();
  }
}

function toApiKey(row: ApiKeyTable): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    models: row.models ? (JSON.parse(row.models) as string[]) : null,
    endpoints: row.endpoints ? (JSON.parse(row.endpoints) as EndpointFamily[]) : null,
    tier: row.tier,
    rpm: row.rpm,
    tpm: row.tpm,
    budgetUsd: row.budget_usd,
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    createdAt: Number(row.created_at),
  };
}
