import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connect.js';
import type { ApiKeyTable } from '../db/schema.js';
import type { EndpointFamily } from '../contracts/endpoint-family.js';
import { KeyAuthCache, judgeKeyState, type AuthRead } from './key-auth-cache.js';
import { displayPrefix, generateSecret, hashSecret } from './secrets.js';
import { parseOperatorLimits, touchesLimits, withOperatorPatch, type OperatorLimits } from './operator-limits.js';

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  models: readonly string[] | null;
  endpoints: readonly EndpointFamily[] | null;
  tier: string | null;
  rpm: number | null;
  tpm: number | null;
  /** Requests in flight at once (`max_parallel_requests`); null: no cap. */
  maxParallel: number | null;
  budgetUsd: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** When an operator disabled the key; null while enabled. */
  disabledAt: number | null;
  createdAt: number;
  /** The user the key belongs to; `operator` unless made for someone (issue 12). */
  owner: string;
  /** MCP servers the key may use (issue 31), each with its tools or null for all of them; null: none. */
  mcp?: McpGrant | null;
  /** Response cache (issue 32): true on, false off, null follows the model's or the global switch. */
  cacheEnabled?: boolean | null;
  /** Default TTL of the key's cache entries in seconds; null: the model's or the global one. */
  cacheTtlS?: number | null;
  /** Operator-set shared cache namespace; null: entries are scoped to the key's owner. */
  cacheNamespace?: string | null;
  /** Response cache match mode (issue 32): exact or semantic; null follows the model's or the global one. */
  cacheMode?: CacheMode | null;
  /** What an operator set on the key (issue 44): its holder may lower these, never raise them. */
  operatorLimits?: OperatorLimits | null;
}

/** How the response cache matches a request: the same body only, or also a similar last question. */
export type CacheMode = 'exact' | 'semantic';

/** A key's MCP permission: server name → the tools it may call there (null: every tool the server publishes). */
export type McpGrant = Readonly<Record<string, readonly string[] | null>>;

/** A change to a key's settings; `null` clears a limit or list, absent fields stay as they are. */
export interface KeyPatch {
  name?: string;
  models?: readonly string[] | null;
  endpoints?: readonly EndpointFamily[] | null;
  tier?: string | null;
  rpm?: number | null;
  tpm?: number | null;
  maxParallel?: number | null;
  mcp?: McpGrant | null;
  budgetUsd?: number | null;
  expiresAt?: number | null;
  disabled?: boolean;
  cacheEnabled?: boolean | null;
  cacheTtlS?: number | null;
  cacheNamespace?: string | null;
  cacheMode?: CacheMode | null;
}

export interface CreateKeyInput extends Omit<KeyPatch, 'name' | 'disabled'> {
  name: string;
  /** Use this exact secret (GATEWAY_BOOTSTRAP_KEY); otherwise a random one is made. */
  secret?: string;
  /** The owning user's id; the built-in operator when absent. */
  owner?: string;
  /** An operator makes the key: the limits given become bounds its holder cannot lift (issue 44). */
  byOperator?: boolean;
}

/** Who writes a key change: an operator's limits become bounds its holder cannot lift (issue 44). */
export interface KeyWriteOptions {
  byOperator?: boolean;
}

/** The built-in user who owns keys made by the admin API, the CLI and the bootstrap. */
export const OPERATOR_USER_ID = 'operator';

export type KeyLookup = { status: 'ok'; key: ApiKey } | { status: 'invalid' | 'revoked' | 'expired' | 'disabled' };

/**
 * API keys, stored hashed. Lookups by secret go through the per-request cache (key-auth-cache.ts),
 * which every change here tells, and `onChange` tells the other instances.
 */
export class KeyStore {
  private readonly auth: KeyAuthCache;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    /** Called after a key is created, changed or revoked (other instances drop their caches). */
    private readonly onChange: (keyId: string) => void = () => undefined,
  ) {
    this.auth = new KeyAuthCache((hash) => this.readForAuth(hash), now);
  }

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
      max_parallel: input.maxParallel ?? null,
      mcp: input.mcp ? JSON.stringify(input.mcp) : null,
      cache_enabled: input.cacheEnabled === undefined || input.cacheEnabled === null ? null : input.cacheEnabled ? 1 : 0,
      cache_ttl_s: input.cacheTtlS ?? null,
      cache_namespace: input.cacheNamespace ?? null,
      ...(input.cacheMode ? { cache_mode: input.cacheMode } : {}),
      budget_usd: input.budgetUsd ?? null,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      created_at: this.now(),
      disabled_at: null,
      owner: input.owner ?? OPERATOR_USER_ID,
      operator_limits: input.byOperator ? jsonOrNull(withOperatorPatch(null, input)) : null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    this.auth.dropSecret(row.secret_hash);
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

  /**
   * The row for authentication, with its owner's disabled time: a disabled user's keys are
   * refused like disabled keys. A join by primary key, on a cache miss only.
   */
  private async readForAuth(hash: string): Promise<AuthRead> {
    const row = await this.db
      .selectFrom('api_keys')
      .leftJoin('users', 'users.id', 'api_keys.owner')
      .selectAll('api_keys')
      .select('users.disabled_at as owner_disabled_at')
      .where('api_keys.secret_hash', '=', hash)
      .executeTakeFirst();
    return { storedHash: row?.secret_hash ?? hash, key: row ? toAuthKey(row) : null };
  }

  /** A user was disabled, re-enabled or removed: their keys are looked up afresh everywhere. */
  async ownerChanged(owner: string): Promise<void> {
    const owned = await this.db.selectFrom('api_keys').select('id').where('owner', '=', owner).execute();
    for (const { id } of owned) this.changed(id);
  }

  async hasAnyKey(): Promise<boolean> {
    return (await this.db.selectFrom('api_keys').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  /** Every key, or one user's keys. */
  async list(filter: { owner?: string } = {}): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .$if(filter.owner !== undefined, (qb) => qb.where('owner', '=', filter.owner!))
      .orderBy('created_at')
      .execute();
    return rows.map(toApiKey);
  }

  /**
   * One page of keys (issue 22): `q` a case-insensitive substring of the name, revoked keys left
   * out unless asked for, oldest first, with the count of all that match for the pager.
   */
  async page(filter: { owner?: string | undefined; q?: string | undefined; includeRevoked: boolean; limit: number; offset: number }): Promise<{ keys: ApiKey[]; total: number }> {
    const pattern = filter.q === undefined ? undefined : `%${filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const matching = this.db
      .selectFrom('api_keys')
      .$if(filter.owner !== undefined, (qb) => qb.where('owner', '=', filter.owner!))
      .$if(!filter.includeRevoked, (qb) => qb.where('revoked_at', 'is', null))
      .$if(pattern !== undefined, (qb) => qb.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`));
    const [rows, count] = await Promise.all([
      matching.selectAll().orderBy('created_at').orderBy('id').limit(filter.limit).offset(filter.offset).execute(),
      matching.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { keys: rows.map(toApiKey), total: Number(count.n) };
  }

  /**
   * Gives a live key a new secret; the old one is refused from this moment (this instance drops
   * its cached lookups, `onChange` tells the others). Undefined when there is no live key `id`.
   */
  async regenerate(id: string): Promise<{ key: ApiKey; secret: string } | undefined> {
    const secret = generateSecret();
    const result = await this.db
      .updateTable('api_keys')
      .set({ secret_hash: hashSecret(secret), prefix: displayPrefix(secret) })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    this.changed(id);
    const key = await this.get(id);
    return key ? { key, secret } : undefined;
  }

  /** Revokes every live key of a user (the user is being removed); returns how many. */
  async revokeAllOf(owner: string): Promise<number> {
    const live = await this.db.selectFrom('api_keys').select('id').where('owner', '=', owner).where('revoked_at', 'is', null).execute();
    if (live.length === 0) return 0;
    await this.db.updateTable('api_keys').set({ revoked_at: this.now() }).where('owner', '=', owner).where('revoked_at', 'is', null).execute();
    for (const { id } of live) this.changed(id);
    return live.length;
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toApiKey(row) : undefined;
  }

  /** Revokes by id or by the displayed prefix; returns whether a live key was revoked. */
  async revoke(idOrPrefix: string): Promise<boolean> {
    const targets = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where((eb) => eb.or([eb('id', '=', idOrPrefix), eb('prefix', '=', idOrPrefix)]))
      .where('revoked_at', 'is', null)
      .execute();
    if (targets.length === 0) return false;
    const ids = targets.map((t) => t.id);
    const result = await this.db.updateTable('api_keys').set({ revoked_at: this.now() }).where('id', 'in', ids).where('revoked_at', 'is', null).executeTakeFirst();
    for (const id of ids) this.changed(id);
    return Number(result.numUpdatedRows) > 0;
  }

  /** Applies a patch; returns the key as stored afterwards, or undefined when there is no such key. */
  async update(id: string, patch: KeyPatch, options: KeyWriteOptions = {}): Promise<ApiKey | undefined> {
    const set: Partial<ApiKeyTable> = {};
    if (options.byOperator && touchesLimits(patch)) {
      const row = await this.db.selectFrom('api_keys').select('operator_limits').where('id', '=', id).executeTakeFirst();
      set.operator_limits = jsonOrNull(withOperatorPatch(parseOperatorLimits(row?.operator_limits), patch));
    }
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.models !== undefined) set.models = patch.models === null ? null : JSON.stringify(patch.models);
    if (patch.endpoints !== undefined) set.endpoints = patch.endpoints === null ? null : JSON.stringify(patch.endpoints);
    if (patch.tier !== undefined) set.tier = patch.tier;
    if (patch.rpm !== undefined) set.rpm = patch.rpm;
    if (patch.tpm !== undefined) set.tpm = patch.tpm;
    if (patch.maxParallel !== undefined) set.max_parallel = patch.maxParallel;
    if (patch.mcp !== undefined) set.mcp = patch.mcp === null ? null : JSON.stringify(patch.mcp);
    if (patch.cacheEnabled !== undefined) set.cache_enabled = patch.cacheEnabled === null ? null : patch.cacheEnabled ? 1 : 0;
    if (patch.cacheTtlS !== undefined) set.cache_ttl_s = patch.cacheTtlS;
    if (patch.cacheNamespace !== undefined) set.cache_namespace = patch.cacheNamespace;
    if (patch.cacheMode !== undefined) set.cache_mode = patch.cacheMode;
    if (patch.budgetUsd !== undefined) set.budget_usd = patch.budgetUsd;
    if (patch.expiresAt !== undefined) set.expires_at = patch.expiresAt;
    if (patch.disabled !== undefined) set.disabled_at = patch.disabled ? this.now() : null;
    if (Object.keys(set).length > 0) {
      const result = await this.db.updateTable('api_keys').set(set).where('id', '=', id).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      this.changed(id);
    }
    return this.get(id);
  }

  /** This instance drops the key at once; `onChange` tells the others (also after a write made in a transaction). */
  changed(id: string): void {
    this.forget(id);
    this.onChange(id);
  }

  /** Drops cached lookups of one key (called here on change, and by the invalidation bus). */
  forget(keyId: string): void {
    this.auth.forget(keyId);
  }

  /**
   * Authenticates a presented secret through the per-request cache: a cached answer comes back
   * without a promise (this runs on every request).
   */
  authenticate(secret: string): KeyLookup | Promise<KeyLookup> {
    return this.auth.authenticate(secret);
  }

  /**
   * Judges a key by id as `authenticate` judges a secret's key (revoked, disabled, its owner
   * disabled, expired): for in-process requests that act as a key (plugins/acting-key.ts).
   */
  async authenticateById(id: string): Promise<KeyLookup> {
    const row = await this.db
      .selectFrom('api_keys')
      .leftJoin('users', 'users.id', 'api_keys.owner')
      .selectAll('api_keys')
      .select('users.disabled_at as owner_disabled_at')
      .where('api_keys.id', '=', id)
      .executeTakeFirst();
    return row ? judgeKeyState(toAuthKey(row), this.now()) : { status: 'invalid' };
  }

  /** Drops every cached lookup (the invalidation bus, after a change it could not name). */
  invalidate(): void {
    this.auth.invalidate();
  }
}

/** The key as authentication judges it: disabled while either it or its owner is. */
function toAuthKey(row: ApiKeyTable & { owner_disabled_at: number | null }): ApiKey {
  const key = toApiKey(row);
  if (key.disabledAt === null && row.owner_disabled_at !== null) key.disabledAt = Number(row.owner_disabled_at);
  return key;
}

function toApiKey(row: ApiKeyTable): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    models: row.models ? (JSON.parse(row.models) as string[]) : null,
    endpoints: row.endpoints ? (JSON.parse(row.endpoints) as EndpointFamily[]) : null,
    tier: row.tier,
    // PostgreSQL's drivers may hand 64-bit integers over as strings.
    rpm: row.rpm === null ? null : Number(row.rpm),
    tpm: row.tpm === null ? null : Number(row.tpm),
    maxParallel: row.max_parallel === null || row.max_parallel === undefined ? null : Number(row.max_parallel),
    budgetUsd: row.budget_usd === null ? null : Number(row.budget_usd),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : Number(row.disabled_at),
    createdAt: Number(row.created_at),
    owner: row.owner ?? OPERATOR_USER_ID,
    mcp: row.mcp ? (JSON.parse(row.mcp) as McpGrant) : null,
    cacheEnabled: row.cache_enabled === null || row.cache_enabled === undefined ? null : Number(row.cache_enabled) === 1,
    cacheTtlS: row.cache_ttl_s === null || row.cache_ttl_s === undefined ? null : Number(row.cache_ttl_s),
    cacheNamespace: row.cache_namespace ?? null,
    cacheMode: row.cache_mode === 'exact' || row.cache_mode === 'semantic' ? row.cache_mode : null,
    operatorLimits: parseOperatorLimits(row.operator_limits),
  };
}

const jsonOrNull = (value: object | undefined): string | null => (value === undefined ? null : JSON.stringify(value));
