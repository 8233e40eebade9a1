import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../db/connect.js';
import { dialectOf } from '../db/dialect.js';
import type { Database, ResponseCacheTable } from '../db/schema.js';
import { DbFillLeases } from './db-fill-leases.js';
import { DbSemanticQuestions } from './db-semantic-questions.js';
import type { FillLeases } from './fill-leases.js';
import type { SemanticQuestions } from './semantic-questions.js';
import { bytesToShed, tenantOf } from './tenant-shares.js';

export type CacheEntry = ResponseCacheTable;

/** What instances sharing a store share besides the entries: semantic questions and fill leases. */
export interface SharedCacheParts {
  questions: SemanticQuestions;
  leases: FillLeases;
}

/** Where entries live: the gateway's database (SQLite or PostgreSQL) or Redis (cache/redis-cache-store.ts). */
export interface CacheStore {
  /** The live entry with this id in this scope, or undefined. */
  get(id: string, scope: string, now: number): Promise<CacheEntry | undefined>;
  put(entry: CacheEntry): Promise<void>;
  /** Removes a scope's entries (with its sub-namespaces), optionally of one model only; all when no scope. */
  purge(filter: { scope?: string | undefined; model?: string | undefined }): Promise<number>;
  /**
   * Removes expired entries, then, past the cap, the oldest entries of the tenants holding the
   * most (cache/tenant-shares.ts) until the store is under it. Runs in the background.
   */
  sweep(now: number, maxBytes: number): Promise<number>;
  totalBytes(): Promise<number>;
  /** Where several instances use this store; undefined where one owns it (SQLite). */
  shared(bucketLimit: number): SharedCacheParts | undefined;
}

/**
 * The response cache's entries in the gateway's own store: the embedded SQLite file, or PostgreSQL,
 * where every instance reads and writes the same table. One indexed read per lookup.
 */
export class ResponseCacheStore implements CacheStore {
  constructor(private readonly db: Db) {}

  /** The live entry with this id in this scope (the id already covers the scope; checked again all the same). */
  async get(id: string, scope: string, now: number): Promise<CacheEntry | undefined> {
    const row = await this.db.selectFrom('response_cache').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.scope !== scope || Number(row.expires_at) <= now) return undefined;
    return { ...row, created_at: Number(row.created_at), expires_at: Number(row.expires_at), bytes: Number(row.bytes) };
  }

  async put(entry: CacheEntry): Promise<void> {
    const { id: _id, ...rest } = entry;
    await this.db.insertInto('response_cache').values(entry).onConflict((c) => c.column('id').doUpdateSet(rest)).execute();
  }

  /** Removes a scope's entries (with its sub-namespaces), optionally of one model only; all when no scope. */
  async purge(filter: { scope?: string | undefined; model?: string | undefined }): Promise<number> {
    let query = this.db.deleteFrom('response_cache');
    if (filter.scope !== undefined) query = query.where(inScope(filter.scope));
    if (filter.model !== undefined) query = query.where('model', '=', filter.model);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Removes expired entries, then brings the store under its cap tenant by tenant (issue 44): the
   * tenants holding the most lose their oldest entries first, so no tenant's entries go while
   * another holds more. A few rounds, for entries other instances write meanwhile.
   */
  async sweep(now: number, maxBytes: number): Promise<number> {
    let removed = Number((await this.db.deleteFrom('response_cache').where('expires_at', '<=', now).executeTakeFirst()).numDeletedRows);
    for (let round = 0; round < SHARE_ROUNDS && (await this.totalBytes()) > maxBytes; round++) {
      const held = new Map<string, number>();
      const scopes = await this.db.selectFrom('response_cache').select((eb) => ['scope', eb.fn.sum<number | string>('bytes').as('bytes')]).groupBy('scope').execute();
      for (const row of scopes) held.set(tenantOf(row.scope), (held.get(tenantOf(row.scope)) ?? 0) + Number(row.bytes));
      for (const [tenant, bytes] of bytesToShed(held, maxBytes)) removed += await this.removeOldest(tenant, bytes);
    }
    return removed;
  }

  /** Removes a tenant's oldest entries until at least `bytes` are gone. */
  private async removeOldest(tenant: string, bytes: number): Promise<number> {
    let left = bytes;
    let removed = 0;
    while (left > 0) {
      const oldest = await this.db.selectFrom('response_cache').select(['id', 'bytes']).where(inScope(tenant)).orderBy('created_at').limit(200).execute();
      if (oldest.length === 0) break;
      const victims: string[] = [];
      for (const row of oldest) {
        if (left <= 0) break;
        victims.push(row.id);
        left -= Number(row.bytes);
      }
      removed += Number((await this.db.deleteFrom('response_cache').where('id', 'in', victims).executeTakeFirst()).numDeletedRows);
    }
    return removed;
  }

  /** PostgreSQL is shared by every instance on it; the SQLite file belongs to one. */
  shared(bucketLimit: number): SharedCacheParts | undefined {
    if (dialectOf(this.db) !== 'postgres') return undefined;
    return { questions: new DbSemanticQuestions(this.db, bucketLimit), leases: new DbFillLeases(this.db) };
  }

  async totalBytes(): Promise<number> {
    const row = await this.db.selectFrom('response_cache').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('bytes'), sql<number>`0`).as('total')).executeTakeFirst();
    return Number(row?.total ?? 0);
  }
}

/** Rounds of per-tenant eviction one sweep makes at most. */
const SHARE_ROUNDS = 3;

/** A scope's entries with its sub-namespaces' (`scope/ns:…`). */
function inScope(scope: string) {
  const prefix = `${scope}/`;
  // substr, not LIKE: ids may hold `_`, which LIKE reads as a wildcard (another tenant's scope).
  return (eb: ExpressionBuilder<Database, 'response_cache'>) => eb.or([eb('scope', '=', scope), eb(sql<string>`substr(scope, 1, ${prefix.length})`, '=', prefix)]);
}
