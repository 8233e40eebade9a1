import { LIMITS } from '../../validation/limits.js';
import { GatewayError } from '../../errors.js';
import type { TierConfig } from '../../config/schema.js';
import type { ApiKey, KeyPatch } from '../../keys/key-store.js';
import { ENDPOINT_FAMILIES, type CreateKeyBody, type KeyView, type PatchKeyBody } from './key-schemas.js';
import type { Catalog } from '../../catalog/catalog.js';
import { knownModelsOnly, type KnownModel } from './known-models.js';

/**
 * Reads an admin timestamp: Unix seconds (a number, or a string of digits in a query) or an
 * ISO-8601 date-time; a date-time without a zone is read as UTC. Returns epoch milliseconds.
 */
export function parseTimestamp(value: string | number, field: string): number {
  const ms = typeof value === 'number' ? value * 1000 : /^\d+$/.test(value) ? Number(value) * 1000 : parseIso(value);
  if (Number.isNaN(ms)) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${field}' must be an ISO-8601 date-time (e.g. 2026-12-31T23:59:59Z) or Unix seconds`, { param: field });
  }
  if (ms < 0 || ms > LIMITS.unixSeconds * 1000) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${field}' must be between 1970 and the end of year 9999`, { param: field });
  }
  return ms;
}

function parseIso(value: string): number {
  const isIso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(value);
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) && value.includes('T');
  return isIso ? Date.parse(hasZone || !value.includes('T') ? value : `${value}Z`) : NaN;
}

/**
 * A key's tier must be one the configuration defines; otherwise its limits would silently be none.
 * Only an operator is told the tiers there are (issue 44: a key holder learns no tier names).
 */
function checkTier(tier: string | null | undefined, tiers: Readonly<Record<string, TierConfig>> | undefined, listTiers: boolean): void {
  if (tier === undefined || tier === null || tiers?.[tier]) return;
  if (!listTiers) throw new GatewayError('GW_REQ_INVALID_PARAM', `'tier': there is no tier '${tier}' for your keys`, { param: 'tier' });
  const known = Object.keys(tiers ?? {});
  const hint = known.length > 0 ? `one of: ${known.join(', ')}` : 'defined under `tiers` in the configuration (none are)';
  throw new GatewayError('GW_REQ_INVALID_PARAM', `'tier' must be ${hint}`, { param: 'tier' });
}

/** Model lists name models the gateway knows (issue 21: the operator's too), exactly. */
export function checkModelIds(models: readonly string[] | null | undefined, catalog: Pick<Catalog, 'find' | 'modelsFor'>, field = 'models'): void {
  const index = (models ?? []).findIndex((id) => !catalog.find(id));
  if (index < 0) return;
  const known = [...new Set(ENDPOINT_FAMILIES.flatMap((family) => catalog.modelsFor(family)))];
  throw new GatewayError('GW_REQ_INVALID_PARAM', `'${field}[${index}]' must be one of: ${known.join(', ')}`, { param: `${field}[${index}]` });
}

/** The admin body as a KeyStore patch (create bodies are patches with a name); `listTiers` false for a key holder. */
export function toKeyPatch(
  body: CreateKeyBody | PatchKeyBody,
  tiers: Readonly<Record<string, TierConfig>> | undefined,
  catalog: Pick<Catalog, 'find' | 'modelsFor'>,
  options: { listTiers: boolean } = { listTiers: true },
): KeyPatch {
  checkTier(body.tier, tiers, options.listTiers);
  checkModelIds(body.models, catalog);
  const patch: KeyPatch = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.models !== undefined) patch.models = body.models;
  if (body.endpoints !== undefined) patch.endpoints = body.endpoints;
  if (body.tier !== undefined) patch.tier = body.tier;
  if (body.rpm !== undefined) patch.rpm = body.rpm;
  if (body.tpm !== undefined) patch.tpm = body.tpm;
  if (body.max_parallel_requests !== undefined) patch.maxParallel = body.max_parallel_requests;
  if (body.mcp !== undefined) patch.mcp = body.mcp;
  if (body.budget_usd !== undefined) patch.budgetUsd = body.budget_usd;
  if (body.cache_enabled !== undefined) patch.cacheEnabled = body.cache_enabled;
  if (body.cache_ttl_seconds !== undefined) patch.cacheTtlS = body.cache_ttl_seconds;
  if (body.cache_namespace !== undefined) patch.cacheNamespace = body.cache_namespace;
  if (body.cache_mode !== undefined) patch.cacheMode = body.cache_mode;
  if (body.expires_at !== undefined) patch.expiresAt = body.expires_at === null ? null : parseTimestamp(body.expires_at, 'expires_at');
  if ('disabled' in body && body.disabled !== undefined) patch.disabled = body.disabled;
  return patch;
}

/** A stored time as ISO-8601; a value no date can hold (a row written before ranges were checked) reads as null, never a 500. */
export const iso = (ms: number | null): string | null => (ms === null || !(Math.abs(ms) <= 8.64e15) ? null : new Date(ms).toISOString());

export function statusOf(key: ApiKey, now: number): KeyView['status'] {
  if (key.revokedAt !== null) return 'revoked';
  if (key.disabledAt !== null) return 'disabled';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

/** The fields of a KeyView that come from the key alone (key-views.ts adds owner and activity). */
export type KeyFields = Omit<KeyView, 'owner' | 'owner_email' | 'last_used_at' | 'spent_month_usd' | 'spent_usd'>;

/** What the admin API shows of a key: never the secret or its hash. */
export function toKeyView(key: ApiKey, now: number, known?: KnownModel): KeyFields {
  return {
    id: key.id,
    object: 'api_key',
    name: key.name,
    prefix: key.prefix,
    status: statusOf(key, now),
    models: knownModelsOnly(key.models, known),
    endpoints: key.endpoints ? [...key.endpoints] : null,
    tier: key.tier,
    rpm: key.rpm,
    tpm: key.tpm,
    max_parallel_requests: key.maxParallel,
    mcp: key.mcp ? Object.fromEntries(Object.entries(key.mcp).map(([server, tools]) => [server, tools ? [...tools] : null])) : null,
    budget_usd: key.budgetUsd,
    cache_enabled: key.cacheEnabled ?? null,
    cache_ttl_seconds: key.cacheTtlS ?? null,
    cache_namespace: key.cacheNamespace ?? null,
    cache_mode: key.cacheMode ?? null,
    expires_at: iso(key.expiresAt),
    disabled: key.disabledAt !== null,
    created_at: new Date(key.createdAt).toISOString(),
    revoked_at: iso(key.revokedAt),
  };
}
