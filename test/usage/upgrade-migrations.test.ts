import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, postgresPool, type Db } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import { usageRollups } from '../../src/db/migrations/0018-usage-rollups.js';
import { eventErrorCode } from '../../src/db/migrations/0020-event-error-code.js';
import { requestLogIndexes } from '../../src/db/migrations/0019-request-log-indexes.js';
import { usageReport } from '../../src/usage/usage-report.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';

/** The last migration before issue 22. */
const BEFORE = '0010-channel-settings';
const T0 = Date.UTC(2026, 10, 1, 10);

/**
 * Issue 22's migrations on a store with history: the events already stored are rolled up (the
 * reports read rollups from then on), failed events get their error code from their details, and
 * every migration can run again over its own work (a start killed after it committed, before the
 * migrator recorded it).
 */
describe.each(['sqlite', 'postgres'] as const)('upgrading a %s store with history to issue 22', (kind) => {
  let db: Db;
  let dir: string | undefined;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (kind === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'gateway-upgrade-'));
      db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(join(dir, 'gateway.sqlite')) }) });
    } else {
      database = await createTestDatabase();
      db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(database.url, 2) }) });
    }
    await migrate(db, BEFORE);
    const rows = Array.from({ length: 500 }, (_, i) => ({
      request_id: `old-${i}`, key_id: `key_${i % 4}`, model: i % 3 ? 'm-a' : 'm-b', channel: 'ch', family: 'chat-completions',
      status: i % 10 === 0 ? 429 : 200, outcome: i % 10 === 0 ? 'error' : 'success', prompt_tokens: i, completion_tokens: 1, reasoning_tokens: 0,
      images: 0, video_seconds: 0, cost_usd: 0.001, latency_ms: 3, ttft_ms: null, created_at: T0 + i * 600_000,
    }));
    await db.insertInto('usage_events').values(rows).execute();
    await db
      .insertInto('request_details')
      .values(rows.map((r) => ({ request_id: r.request_id, created_at: r.created_at, retries: 0, fallbacks: 0, error_code: r.status === 429 ? 'rate_limit_exceeded' : null, error_message: null, request_headers: null, request_body: null, response_body: null })))
      .execute();
    await migrate(db);
  });
  afterAll(async () => {
    await db?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('rolls up the events already stored: reports from rollups equal the events', async () => {
    const report = await usageReport(db, {}, 'day');
    expect(report.totals.requests).toBe(500);
    expect(report.totals.prompt_tokens).toBe((499 * 500) / 2);
    expect(report.totals.by_outcome).toEqual({ success: 450, error: 50 });
    const byKey = await usageReport(db, { from: T0 + 3_600_000 + 1 }, 'key');
    expect(byKey.totals.requests).toBe(500 - 7);
  });

  it('gives failed events the error code their details hold', async () => {
    const codes = await db.selectFrom('usage_events').select(['error_code']).where('status', '=', 429).execute();
    expect(codes).toHaveLength(50);
    expect(new Set(codes.map((c) => c.error_code))).toEqual(new Set(['rate_limit_exceeded']));
    expect(await db.selectFrom('usage_events').select('id').where('status', '=', 200).where('error_code', 'is not', null).execute()).toHaveLength(0);
  });

  it.runIf(kind === 'sqlite')('each migration can run again over its own work without failing or counting twice', async () => {
    for (const migration of [usageRollups, requestLogIndexes, eventErrorCode]) await db.connection().execute((connection) => migration.up(connection as never));
    expect((await usageReport(db, {}, undefined)).totals.requests).toBe(500);
  });
});
