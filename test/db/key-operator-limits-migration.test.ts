import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, postgresPool, SQLITE_FILE } from '../../src/db/connect.js';
import type { ApiKeyTable, Database } from '../../src/db/schema.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';

const key = (id: string, owner: string, fields: Partial<ApiKeyTable>): ApiKeyTable => ({
  id, name: id, prefix: id, secret_hash: `hash-${id}`, models: null, endpoints: null, tier: null, rpm: null, tpm: null, budget_usd: null,
  expires_at: null, revoked_at: null, created_at: 1, disabled_at: null, owner, ...fields,
});

/**
 * Migration 0030 (issue 44 item 0): who set an existing user key's limits is unknown, so its
 * live limits become the operator's bounds; operator-owned and revoked keys get none.
 */
describe.each(['sqlite', 'postgres'] as const)('migration 0030 on %s: existing user keys keep their limits as bounds', (kind) => {
  let db: Kysely<Database>;
  let dir: string | undefined;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (kind === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'gateway-0030-'));
      db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(join(dir, SQLITE_FILE)) }) });
    } else {
      database = await createTestDatabase();
      db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(database.url, 2) }) });
    }
  });
  afterAll(async () => {
    await db?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('seeds the bounds of live user keys from their limits', async () => {
    await migrate(db as never, '0029-shared-cache-fill');
    await db.insertInto('users').values({ id: 'usr_1', email: 'a@example.org', name: 'A', role: 'user', password_hash: null, budget_usd: null, rpm: null, tpm: null, models: null, families: null, disabled_at: null, created_at: 1 }).execute();
    await db.insertInto('api_keys').values([
      key('k_user', 'usr_1', { rpm: 5, tier: 'bronze', expires_at: 9_000_000, max_parallel: 1, cache_enabled: 0, models: '["delta-4.1"]' }),
      key('k_plain', 'usr_1', {}),
      key('k_revoked', 'usr_1', { rpm: 5, revoked_at: 2 }),
      key('k_operator', 'operator', { rpm: 5 }),
    ]).execute();
    await migrate(db as never);
    const rows = await db.selectFrom('api_keys').select(['id', 'operator_limits']).orderBy('id').execute();
    const bounds = Object.fromEntries(rows.map((r) => [r.id, r.operator_limits ? JSON.parse(r.operator_limits) : null]));
    expect(bounds).toEqual({
      k_user: { models: ['delta-4.1'], tier: 'bronze', rpm: 5, maxParallel: 1, expiresAt: 9_000_000, cacheOff: true },
      k_plain: null,
      k_revoked: null,
      k_operator: null,
    });
  });
});
