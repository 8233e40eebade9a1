import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSqlite, sqliteHandleOf, SQLITE_FILE } from '../../src/db/connect.js';
import { Retention } from '../../src/db/retention.js';
import { packHeaders, unpackHeaders } from '../../src/requests/packed-headers.js';
import { usageReport } from '../../src/usage/usage-report.js';
import { UsageRecorder, type UsageEvent } from '../../src/usage/usage-recorder.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';
import { DAY_MS, openTestStore, type TestStore } from '../helpers/usage-volume.js';

const HEADERS = {
  host: 'gateway.internal:8080', connection: 'keep-alive', accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer [masked]',
  'user-agent': 'OpenAI/JS 5.23.2', 'x-stainless-lang': 'js', 'x-stainless-package-version': '5.23.2', 'x-stainless-os': 'Linux', 'x-stainless-arch': 'x64',
  'x-stainless-runtime': 'node', 'x-stainless-runtime-version': 'v22.20.0', 'x-stainless-retry-count': '0', 'x-stainless-timeout': '600000', 'content-length': '1234',
  'accept-encoding': 'gzip, deflate', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};

const event = (i: number, createdAt: number): UsageEvent => ({
  request_id: `ret-${i}`, key_id: `key_${i % 3}`, model: 'm-a', channel: 'ch', family: 'chat-completions', status: 200, outcome: 'success',
  prompt_tokens: 10, completion_tokens: 5, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0.001, latency_ms: 5, ttft_ms: null, created_at: createdAt,
});

/** Old and recent events with their details (packed headers), written as the gateway writes them. */
async function fill(store: TestStore, old: number, recent: number, now: number): Promise<void> {
  const recorder = new UsageRecorder(store.db, { batchSize: 500, intervalMs: 60_000 });
  for (let i = 0; i < old + recent; i++) recorder.record(event(i, i < old ? now - 3 * DAY_MS + i : now - 1000 + (i % 500)));
  await recorder.close();
  const details = Array.from({ length: old + recent }, (_, i) => ({
    request_id: `ret-${i}`, created_at: i < old ? now - 3 * DAY_MS + i : now - 1000 + (i % 500), retries: 0, fallbacks: 0, error_code: null, error_message: null,
    request_headers: packHeaders({ ...HEADERS, 'content-length': String(i) }), request_body: null, response_body: null,
  }));
  for (let at = 0; at < details.length; at += 500) await store.db.insertInto('request_details').values(details.slice(at, at + 500)).execute();
}

const count = async (store: TestStore, table: 'usage_events' | 'request_details') =>
  Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe.each(['sqlite', 'postgres'] as const)('retention of raw rows on %s (issue 22)', (kind) => {
  let store: TestStore;
  const now = Date.now();
  beforeAll(async () => {
    store = await openTestStore(kind);
    await fill(store, 5_000, 300, now);
  }, 60_000);
  afterAll(() => store?.close());

  it('deletes events and details past the window a chunk at a time; the rollups keep every figure', async () => {
    const before = await usageReport(store.db, {}, 'day');
    const retention = new Retention(store.db, { cutoff: () => now - DAY_MS, chunkRows: 700, pauseMs: 0 });
    const run = await retention.run();
    expect(run).toMatchObject({ events: 5_000, details: 5_000 });
    expect(await count(store, 'usage_events')).toBe(300);
    expect(await count(store, 'request_details')).toBe(300);
    expect(await usageReport(store.db, {}, 'day')).toEqual(before);
    expect(await retention.run()).toMatchObject({ events: 0, details: 0 });
    await retention.close();
  });

  it.runIf(kind === 'sqlite')('gives the freed pages back to the file system (a new file is in incremental auto-vacuum)', async () => {
    const sqlite = sqliteHandleOf(store.db)!;
    expect(sqlite.pragma('auto_vacuum', { simple: true })).toBe(2);
    await fill(store, 4_000, 0, now);
    const pagesBefore = sqlite.pragma('page_count', { simple: true }) as number;
    const run = await new Retention(store.db, { cutoff: () => now - DAY_MS, pauseMs: 0, vacuumPages: 50 }).run();
    expect(run.events).toBe(4_000);
    expect(run.pagesFreed).toBeGreaterThan(0);
    expect(sqlite.pragma('freelist_count', { simple: true })).toBe(0);
    expect(sqlite.pragma('page_count', { simple: true })).toBeLessThan(pagesBefore - run.pagesFreed / 2);
  });
});

describe('retention on an SQLite file made before issue 22', () => {
  it('keeps the file as it is (no auto-vacuum without the one-time VACUUM): nothing to give back, no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-oldfile-'));
    try {
      const old = new SqliteDatabase(join(dir, SQLITE_FILE));
      old.exec('create table before_upgrade (x integer)');
      old.close();
      const db = await connectSqlite(dir);
      expect(sqliteHandleOf(db)!.pragma('auto_vacuum', { simple: true })).toBe(0);
      await new UsageRecorder(db).write([event(1, Date.now() - 5 * DAY_MS)]);
      expect(await new Retention(db, { cutoff: () => Date.now() - DAY_MS }).run()).toEqual({ events: 1, details: 0, pagesFreed: 0 });
      await db.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('retention runs after the server listens (issue 22)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // A gateway whose store already holds rows past the window, restarted.
    const first = await startTestGateway({ file: { request_log: { retention_days: 1 } } });
    await first.deps.usage.write(Array.from({ length: 2_000 }, (_, i) => event(i, Date.now() - 3 * DAY_MS + i)));
    await first.stop({ keepData: true });
    gateway = await startTestGateway({ dataDir: first.dataDir, file: { request_log: { retention_days: 1 } } });
  });
  afterAll(() => gateway.stop());

  it('start-up does not wait for it: the old rows are still there when the gateway answers, and go when it runs', async () => {
    expect((await admin(gateway, 'GET', '/usage')).json.totals.requests).toBe(2_000);
    expect(Number((await gateway.deps.db.selectFrom('usage_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)).toBe(2_000);
    expect((await gateway.retention.run()).events).toBe(2_000);
    expect((await admin(gateway, 'GET', '/usage')).json.totals.requests).toBe(2_000);
  });
});

describe('packed request headers (issue 22)', () => {
  it('read back exactly, in about a third of their JSON', () => {
    const packed = packHeaders(HEADERS);
    expect(unpackHeaders(packed)).toEqual(HEADERS);
    expect(Buffer.byteLength(packed)).toBeLessThan(JSON.stringify(HEADERS).length / 2.5);
    const unusual = { 'x-custom': 'é:'.repeat(300), host: '', 'x-tabbed': 'a\tb', connection: 'Keep-Alive', 'x-stainless-retry-count': '1' };
    expect(unpackHeaders(packHeaders(unusual))).toEqual(unusual);
    expect(unpackHeaders(packHeaders({}))).toEqual({});
  });

  it('reads the JSON of rows written before, and falls back to JSON for what a line cannot hold', () => {
    expect(unpackHeaders('{"host":"h","accept":"*/*"}')).toEqual({ host: 'h', accept: '*/*' });
    const odd = { 'x-odd': 'line\nbreak' };
    expect(packHeaders(odd)).toBe(JSON.stringify(odd));
    expect(unpackHeaders(packHeaders(odd))).toEqual(odd);
  });
});
