import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSqlite, migrate, MIGRATIONS, postgresPool, SQLITE_FILE } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import { rollupEventsSql, ROLLUP_MEASURES } from '../../src/db/usage-rollups.js';
import { UsageRecorder } from '../../src/usage/usage-recorder.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';

const T0 = Date.UTC(2026, 5, 1, 10, 0);
const PARTS = ['cached_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'image_input_tokens', 'image_output_tokens'] as const;

/** Events with every token part, over two days; `seed` varies the figures. */
const events = (count: number, prefix: string, seed: number) =>
  Array.from({ length: count }, (_, i) => ({
    request_id: `${prefix}-${i}`, key_id: `key_${i % 3}`, model: i % 2 ? 'm-a' : 'm-b', channel: 'ch', family: 'chat-completions', status: 200, outcome: 'success',
    prompt_tokens: 1000 + i, completion_tokens: 100, reasoning_tokens: 10, images: 0, video_seconds: 0, cost_usd: 0.001, latency_ms: 5, ttft_ms: null,
    created_at: T0 + i * 3_600_000 * 2, cached_tokens: seed * 10 + i, cache_write_5m_tokens: seed + i, cache_write_1h_tokens: i % 4, image_input_tokens: seed, image_output_tokens: i % 3,
  }));

/**
 * Migration 0025 (issue 35): the rollups get every token part. Rollups of events stored before it
 * get their parts from the ledger, new events add theirs on write (SQLite's writer, PostgreSQL's
 * trigger), and running the migration again changes nothing.
 */
describe.each(['sqlite', 'postgres'] as const)('migration 0025 on %s: token parts in the usage rollups', (kind) => {
  let db: Kysely<Database>;
  let dir: string | undefined;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (kind === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'gateway-0025-'));
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

  /** Each (period, grain)'s sums of every part equal the ledger's. */
  async function expectPartsOfStoredEvents(): Promise<void> {
    const ledger = (await sql<Record<string, number | string>>`select ${sql.raw(PARTS.map((p) => `sum(${p}) as ${p}`).join(', '))} from usage_events`.execute(db)).rows[0]!;
    const byGrain = await sql<Record<string, number | string>>`select period, grain, ${sql.raw(PARTS.map((p) => `sum(${p}) as ${p}`).join(', '))}, sum(events) as events
      from usage_rollups group by period, grain`.execute(db);
    expect(byGrain.rows).toHaveLength(10);
    const stored = Number((await sql<{ n: number | string }>`select count(*) as n from usage_events`.execute(db)).rows[0]!.n);
    for (const row of byGrain.rows) {
      expect(Number(row.events), `${row.period} ${row.grain}`).toBe(stored);
      for (const part of PARTS) expect(Number(row[part]), `${row.period} ${row.grain} ${part}`).toBe(Number(ledger[part]));
    }
  }

  it('backfills the rollups of the events stored before it', async () => {
    await migrate(db as never, '0024-response-channels');
    await db.insertInto('usage_events').values(events(30, 'old', 1)).execute();
    // SQLite's rollups were written by the gateway's writer then; here the 0018 figures are rolled up by hand.
    if (kind === 'sqlite') await sql.raw(rollupEventsSql('sqlite', ROLLUP_MEASURES.slice(0, 10), 'usage_events')).execute(db);
    await migrate(db as never);
    await expectPartsOfStoredEvents();
    expect(Number((await sql<{ n: number | string }>`select sum(cached_tokens) as n from usage_rollups`.execute(db)).rows[0]!.n)).toBeGreaterThan(0);
  });

  it('new events fill the parts as they are written', async () => {
    // The gateway's own store: on SQLite its writer rolls up each batch.
    if (kind === 'sqlite') {
      await db.destroy();
      db = await connectSqlite(dir!);
    }
    const recorder = new UsageRecorder(db as never, { intervalMs: 60_000 });
    for (const event of events(25, 'new', 7)) recorder.record(event);
    await recorder.close();
    await expectPartsOfStoredEvents();
  });

  it('run again (a rerun after a crash, a second instance), it changes nothing', async () => {
    await db.transaction().execute((trx) => MIGRATIONS['0025-rollup-token-parts']!.up(trx as never));
    await expectPartsOfStoredEvents();
  });
});
