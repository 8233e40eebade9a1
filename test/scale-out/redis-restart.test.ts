import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileConfig } from '../../src/config/schema.js';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { bearer } from '../helpers/admin.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';
import { freePort, killRedis, startRedis } from '../helpers/redis-server.js';

/**
 * Issue 23 item 9: a Redis restart loses the shared budgets and rate counters. Spend used to be
 * read again from the ledger without the events still queued on the instances, and the counters
 * started again from zero. Now each instance writes back what it knows (its unwritten spend, its
 * holds, its counts in the open windows), and until all have, each admits only its share of what
 * was left. Two instances, one PostgreSQL, a Redis of the test's own restarted mid-way.
 */
// 10,000 USD per million completion tokens: an answer cut at 10 tokens costs 0.1 USD, and holds as much.
const FILE: FileConfig = { prices: { 'delta-4.1': { completion_per_1m: 10_000 } } };
const chat = { model: 'delta-4.1', messages: [{ role: 'user', content: 'tell me a long story' }], max_tokens: 10 };

describe('a Redis restart under load (issue 23)', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let port: number;
  let redis: ChildProcess;
  let a: TestGateway;
  let b: TestGateway;
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-redis-restart-'));
  beforeAll(async () => {
    database = await createTestDatabase();
    port = await freePort();
    redis = await startRedis(port);
    const env = { databaseUrl: database.url, redisUrl: `redis://127.0.0.1:${port}`, instanceLeaseMs: 1_000 };
    a = await startTestGateway({ dataDir, env, file: FILE });
    b = await startTestGateway({ dataDir, env, file: FILE });
  });
  afterAll(async () => {
    await Promise.all([a?.stop({ keepData: true }), b?.stop({ keepData: true })]);
    await killRedis(redis);
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  const restartRedis = async () => {
    await killRedis(redis);
    redis = await startRedis(port);
    await expect.poll(() => [a.deps.redis!.status, b.deps.redis!.status], { timeout: 10_000 }).toEqual(['ready', 'ready']);
  };

  it('spend still queued on the instances counts after the restart: the budget is overrun by at most one request', async () => {
    const { key, secret } = await a.deps.keys.create({ name: 'restart budget', budgetUsd: 1 });
    // The database is slow to take usage: both instances keep their events queued meanwhile.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('lock table usage_events in share mode');
    let answered = 0;
    try {
      for (let i = 0; i < 6; i++) {
        const answer = await call(i % 2 ? a : b, 'POST', '/v1/chat/completions', chat, bearer(secret));
        expect(answer.status, answer.text).toBe(200);
        answered += 1;
      }
      await restartRedis();
      for (let i = 0; i < 20; i++) {
        const answer = await call(i % 2 ? a : b, 'POST', '/v1/chat/completions', chat, bearer(secret));
        if (answer.status === 200) answered += 1;
        else expect(answer.json.error.code).toBe('insufficient_quota');
      }
    } finally {
      await blocker.query('commit');
      await blocker.end();
    }
    await Promise.all([a.deps.usage.flush(), b.deps.usage.flush()]);
    const spent = await database.db.selectFrom('usage_events').select((eb) => eb.fn.sum<number>('cost_usd').as('usd')).where('key_id', '=', key.id).executeTakeFirst();
    expect(Number(spent?.usd)).toBeGreaterThan(0.5);
    // One request is 0.1 USD.
    expect(Number(spent?.usd)).toBeLessThanOrEqual(1.1 + 1e-9);
    expect(answered).toBeLessThanOrEqual(11);
  });

  it('rate counters are rebuilt from what each instance counted: rpm is overrun by at most one request', async () => {
    const { secret } = await a.deps.keys.create({ name: 'restart rpm', rpm: 10 });
    const small = { ...chat, max_tokens: 1 };
    let admitted = 0;
    for (let i = 0; i < 6; i++) if ((await call(i % 2 ? a : b, 'POST', '/v1/chat/completions', small, bearer(secret))).status === 200) admitted += 1;
    expect(admitted).toBe(6);
    await restartRedis();
    for (let i = 0; i < 20; i++) {
      const answer = await call(i % 2 ? a : b, 'POST', '/v1/chat/completions', small, bearer(secret));
      if (answer.status === 200) admitted += 1;
      else expect(answer.json.error.code).toBe('rate_limit_exceeded');
    }
    // All inside one minute: the window of 10.
    expect(admitted).toBeLessThanOrEqual(11);
    expect(admitted).toBeGreaterThanOrEqual(9);
  });
});
