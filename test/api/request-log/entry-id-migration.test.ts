import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, postgresPool } from '../../../src/db/connect.js';
import type { Database } from '../../../src/db/schema.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';

/** The schema as it was before issue 23 (the migrations before 0011). */
const BEFORE: Record<string, Migration> = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '0011'));

const event = (requestId: string, createdAt: number) => ({
  request_id: requestId, key_id: null, model: 'delta-4.1', channel: null, family: 'chat-completions', status: 200, outcome: 'success',
  prompt_tokens: 1, completion_tokens: 1, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0.5, latency_ms: 1, ttft_ms: null, created_at: createdAt,
});
const detail = (requestId: string, createdAt: number, body: string) => ({
  request_id: requestId, created_at: createdAt, retries: 0, fallbacks: 0, error_code: null, error_message: null, request_headers: '{}', request_body: body, response_body: null,
});

describe.each(['sqlite', 'postgres'] as const)('migration 0011 (issue 23) on %s', (store) => {
  let database: TestDatabase | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-entry-ids-'));
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives every ledger row a unique random id, keeps details joined only where the old join was unambiguous', async () => {
    const open = async (): Promise<Kysely<Database>> => {
      if (store === 'postgres') {
        database ??= await createTestDatabase();
        return new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(database.url, 1) }) });
      }
      return new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(join(dataDir, 'gateway.sqlite')) }) });
    };
    const old = await open();
    const nameComparator = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    const { error } = await new Migrator({ db: old, provider: { getMigrations: async () => BEFORE }, nameComparator }).migrateToLatest();
    if (error) throw error;
    // One ordinary request, and two tenants' requests that shared an x-request-id in one millisecond.
    await old.insertInto('usage_events').values([event('alone', 1000), event('shared', 2000), event('shared', 2000)] as never).execute();
    await old.insertInto('request_details').values([detail('alone', 1000, 'mine'), detail('shared', 2000, 'victim'), detail('shared', 2000, 'attacker')] as never).execute();
    await old.destroy();

    const db = await open();
    try {
      await migrate(db);
      const events = await db.selectFrom('usage_events').select(['entry_id', 'request_id']).execute();
      expect(events).toHaveLength(3);
      expect(events.every((e) => typeof e.entry_id === 'string' && e.entry_id.length >= 32)).toBe(true);
      expect(new Set(events.map((e) => e.entry_id)).size).toBe(3);
      const details = await db.selectFrom('request_details').select(['entry_id', 'request_body']).execute();
      expect(details).toEqual([{ entry_id: events.find((e) => e.request_id === 'alone')!.entry_id, request_body: 'mine' }]);
      // The index is unique: one entry id cannot be stored twice.
      await expect(db.insertInto('usage_events').values({ ...event('again', 3000), entry_id: events[0]!.entry_id } as never).execute()).rejects.toThrow();
    } finally {
      await db.destroy();
    }
  });
});
