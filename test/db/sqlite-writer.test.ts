import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSqlite, SQLITE_FILE, sqliteWriterOf, type Db } from '../../src/db/connect.js';
import { SqliteWriter } from '../../src/db/sqlite-writer.js';
import { isStoreUnavailable } from '../../src/db/store-errors.js';
import { UsageRecorder, type UsageEvent } from '../../src/usage/usage-recorder.js';
import { RequestLog, DEFAULT_REQUEST_LOG } from '../../src/requests/request-log.js';

const event = (i: number): UsageEvent => ({
  entry_id: `e_${i}`, request_id: `req_${i}`, key_id: 'key_1', model: 'delta-4.1', channel: 'c', family: 'chat-completions', status: 200, outcome: 'success',
  prompt_tokens: i, completion_tokens: 2 * i, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0, latency_ms: 1, ttft_ms: null, created_at: 1_700_000_000_000 + i,
});

/** Another connection (as another process of a GATEWAY_WORKERS cluster would hold) takes the write lock. */
function holdWriteLock(dir: string): () => void {
  const other = new SqliteDatabase(join(dir, SQLITE_FILE));
  other.exec('begin immediate');
  return () => {
    other.exec('commit');
    other.close();
  };
}

/**
 * Issue 36: the usage ledger's, rollups' and request log's batches run on a writer thread of their
 * own; a batch waiting for SQLite's write lock (held by another worker process) used to sleep in
 * the busy handler on the request thread, stopping every connection of the process.
 */
describe('SQLite batch writes on the writer thread (issue 36)', () => {
  let dir: string;
  let db: Db | undefined;
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a batch waiting for another connection\'s write lock leaves the event loop running, and lands once the lock is free', async () => {
    dir = mkdtempSync(join(tmpdir(), 'writer-'));
    db = await connectSqlite(dir);
    const recorder = new UsageRecorder(db, { batchSize: 100, intervalMs: 60_000 });
    const release = holdWriteLock(dir);
    for (let i = 1; i <= 5; i++) recorder.record(event(i));
    let flushed = false;
    const flushing = recorder.flush().then(() => (flushed = true));
    // Timers fire while the batch waits: the request thread is not in SQLite's busy handler.
    let turns = 0;
    await new Promise<void>((resolve) => {
      const tick = () => (++turns === 20 ? resolve() : setTimeout(tick, 5));
      setTimeout(tick, 5);
    });
    expect(flushed).toBe(false);
    expect(sqliteWriterOf(db)!.waiting).toBe(1);
    release();
    await flushing;
    const rows = await db.selectFrom('usage_events').select('request_id').orderBy('id').execute();
    expect(rows.map((r) => r.request_id)).toEqual(['req_1', 'req_2', 'req_3', 'req_4', 'req_5']);
    // The rollups commit with their batch, on the same thread.
    const all = await db.selectFrom('usage_rollups').select(['events', 'prompt_tokens']).where('period', '=', 'hour').where('grain', '=', 'all').execute();
    expect(all).toEqual([{ events: 5, prompt_tokens: 15 }]);
    await recorder.close();
  });

  it('batches posted one after another commit in that order', async () => {
    dir = mkdtempSync(join(tmpdir(), 'writer-'));
    db = await connectSqlite(dir);
    const recorder = new UsageRecorder(db, { batchSize: 3, intervalMs: 60_000 });
    for (let i = 1; i <= 10; i++) recorder.record(event(i));
    // Three full batches went out as they filled (not awaited); the close writes the last one.
    await recorder.close();
    const rows = await db.selectFrom('usage_events').select(['id', 'request_id']).orderBy('id').execute();
    expect(rows.map((r) => r.request_id)).toEqual(Array.from({ length: 10 }, (_, i) => `req_${i + 1}`));
  });

  it('closing the store waits for the batches in flight: the shutdown loses nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'writer-'));
    db = await connectSqlite(dir);
    const log = new RequestLog(db, DEFAULT_REQUEST_LOG, { intervalMs: 60_000 });
    const recorder = new UsageRecorder(db, { intervalMs: 60_000 });
    const release = holdWriteLock(dir);
    for (let i = 1; i <= 4; i++) {
      recorder.record(event(i));
      log.record({ entry_id: `e_${i}`, request_id: `req_${i}`, created_at: i, retries: 0, fallbacks: 0, error_code: null, error_message: null, headers: { 'user-agent': 'test' }, request_body: undefined, response_body: undefined });
    }
    // Flushes begin while the lock is held; the store closes behind them (the order main.ts closes in).
    // A batch nobody awaits (posted straight to the writer) is committed before the store closes too.
    const stray = sqliteWriterOf(db)!.write('insert into request_details (entry_id, request_id, created_at, retries, fallbacks) values (?, ?, ?, ?, ?)', undefined, [['e_5', 'req_5', 5, 0, 0]]);
    const closing = Promise.all([recorder.close(), log.close()]).then(() => db!.destroy());
    setTimeout(release, 50);
    await closing;
    await stray;
    db = undefined;
    const check = new SqliteDatabase(join(dir, SQLITE_FILE), { readonly: true });
    try {
      expect((check.prepare('select count(*) as n from usage_events').get() as { n: number }).n).toBe(4);
      expect((check.prepare('select request_id from request_details order by rowid').all() as Array<{ request_id: string }>).map((r) => r.request_id)).toEqual(['req_5', 'req_1', 'req_2', 'req_3', 'req_4']);
    } finally {
      check.close();
    }
  });

  it('a failed batch surfaces with its SQLite code (busy, and any other), and its rows stay queued for the next flush', async () => {
    dir = mkdtempSync(join(tmpdir(), 'writer-'));
    db = await connectSqlite(dir);
    // The writer alone, with a short busy timeout: SQLITE_BUSY is a store that cannot take writes now.
    const writer = new SqliteWriter(join(dir, SQLITE_FILE), 50);
    const release = holdWriteLock(dir);
    const busy = await writer.write('insert into request_details (entry_id, request_id, created_at, retries, fallbacks) values (?, ?, ?, ?, ?)', undefined, [['e', 'r', 1, 0, 0]]).catch((error: unknown) => error);
    release();
    expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
    expect(isStoreUnavailable(busy)).toBe(true);
    const wrong = await writer.write('insert into no_such_table values (?)', undefined, [[1]]).catch((error: unknown) => error);
    expect((wrong as Error).message).toContain('no_such_table');
    await writer.close();
    await expect(writer.write('select 1', undefined, [])).rejects.toThrow('closed');

    // Through the recorder: the error reaches onError, the events are kept, and a later flush stores them.
    const errors: unknown[] = [];
    const recorder = new UsageRecorder(db, { intervalMs: 60_000, onError: (error) => errors.push(error) });
    await db.schema.alterTable('usage_events').renameTo('usage_events_away').execute();
    recorder.record(event(1));
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect((errors[0] as { code?: string }).code).toMatch(/^SQLITE_/);
    expect(recorder.queued).toBe(1);
    await db.schema.alterTable('usage_events_away').renameTo('usage_events').execute();
    await recorder.close();
    expect((await db.selectFrom('usage_events').select('request_id').execute()).map((r) => r.request_id)).toEqual(['req_1']);
  });
});
