import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSqlite, type Db } from '../../src/db/connect.js';
import { UsageRecorder, type UsageEvent } from '../../src/usage/usage-recorder.js';

const event = (i: number): UsageEvent => ({
  request_id: `req_${i}`, key_id: 'key_1', model: 'delta-4.1', channel: 'c', family: 'chat-completions', status: 200, outcome: 'success',
  prompt_tokens: i, completion_tokens: 2 * i, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0, latency_ms: 1, ttft_ms: null, created_at: i,
});

describe('usage recorder batches (issue 4)', () => {
  let dir: string;
  let db: Db;
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a backlog in inserts of at most batchSize, losing nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'usage-'));
    db = await connectSqlite(dir);
    const recorder = new UsageRecorder(db, { batchSize: 3, intervalMs: 60_000 });
    for (let i = 1; i <= 7; i++) recorder.record(event(i));
    await recorder.close();
    const rows = await db.selectFrom('usage_events').select(['request_id', 'prompt_tokens', 'completion_tokens']).orderBy('id').execute();
    expect(rows.map((r) => r.request_id)).toEqual(['req_1', 'req_2', 'req_3', 'req_4', 'req_5', 'req_6', 'req_7']);
    expect(rows[6]).toEqual({ request_id: 'req_7', prompt_tokens: 7, completion_tokens: 14 });
  });

  it('keeps events whose write failed for the next flush', async () => {
    dir = mkdtempSync(join(tmpdir(), 'usage-'));
    db = await connectSqlite(dir);
    const errors: unknown[] = [];
    const recorder = new UsageRecorder(db, { batchSize: 10, intervalMs: 60_000, onError: (e) => errors.push(e) });
    await db.schema.alterTable('usage_events').renameTo('usage_events_away').execute();
    recorder.record(event(1));
    recorder.record(event(2));
    await recorder.flush();
    expect(errors).toHaveLength(1);
    await db.schema.alterTable('usage_events_away').renameTo('usage_events').execute();
    await recorder.close();
    expect((await db.selectFrom('usage_events').select('request_id').execute()).map((r) => r.request_id)).toEqual(['req_1', 'req_2']);
  });
});
