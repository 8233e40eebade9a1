import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileConfig } from '../../src/config/schema.js';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/services.js';
import { pollUntil } from '../helpers/video.js';

/**
 * Issue 13 item 5: budgets hold. Each request's worst-case cost is held at admission and settled
 * to the real cost at its end, and video tasks still running hold theirs until they end; so many
 * requests started together on one budget cannot spend more than it, on one instance or several.
 */
const IMAGE = 'https://example.com/first.png';
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
// 1,000 USD per million completion tokens: a 40-token answer costs 0.04 USD.
const FILE: FileConfig = {
  simulator: { first_token_delay_ms: 150, video_task_ms: 300 },
  prices: { 'delta-4.1': { prompt_per_1m: 10, completion_per_1m: 1_000 }, 'zeta-1.0-r2v': { per_video_second: 1 } },
};
const streamBody = { model: 'delta-4.1', messages: [{ role: 'user', content: 'Tell me a long story' }], max_tokens: 40, stream: true, stream_options: { include_usage: true } };

async function spentBy(gateway: TestGateway, keyId: string): Promise<number> {
  await gateway.deps.usage.flush();
  const row = await gateway.deps.db.selectFrom('usage_events').select((eb) => eb.fn.sum<number>('cost_usd').as('usd')).where('key_id', '=', keyId).executeTakeFirst();
  return Number(row?.usd ?? 0);
}

describe('budget holds on one instance', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: FILE });
  });
  afterAll(() => gateway.stop());

  it('50 concurrent streams on a budget with room for five spend no more than the budget', async () => {
    const { key, secret } = await gateway.deps.keys.create({ name: 'five streams', budgetUsd: 0.2 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => call(gateway, 'POST', '/v1/chat/completions', streamBody, bearer(secret))));
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(admitted.length + refused.length).toBe(50);
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.length).toBeLessThanOrEqual(5);
    expect(refused[0]!.json.error.code).toBe('insufficient_quota');
    expect(refused[0]!.json.error.message).toContain('could cost up to');
    expect(await spentBy(gateway, key.id)).toBeLessThanOrEqual(0.2);
    // Holds were given back: once the streams ended, what is left of the budget can be used.
    const spent = await spentBy(gateway, key.id);
    if (0.2 - spent >= 0.041) expect((await call(gateway, 'POST', '/v1/chat/completions', streamBody, bearer(secret))).status).toBe(200);
  });

  it('20 video creations on a budget for one: a pending task holds its worst case until it ends', async () => {
    // No duration: the worst case is 15 s = 15 USD; 25 USD has room for one such task at a time.
    const { key, secret } = await gateway.deps.keys.create({ name: 'one video', budgetUsd: 25 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(gateway, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: `clip ${i}`, images: [IMAGE] }, bearer(secret))));
    const created = answers.filter((a) => a.status === 200);
    expect(created).toHaveLength(1);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(19);
    // Sequentially too: the running task holds 15 USD, so a second is refused while it runs.
    expect((await call(gateway, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'second', images: [IMAGE] }, bearer(secret))).status).toBe(429);
    for (const task of created) await pollUntil(gateway, `/v1/video/generations/${task.json.id}`, (json) => json.status === 'completed', { headers: bearer(secret) });
    // Charged by the real seconds; the holds are gone, so new tasks fit again.
    const spent = await spentBy(gateway, key.id);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThan(15);
    expect((await call(gateway, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'after', duration: 5, images: [IMAGE] }, bearer(secret))).status).toBe(200);
  });
});

describe('budget holds across two instances (PostgreSQL and Redis)', () => {
  let database: TestDatabase;
  let dataDir: string;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-budget-'));
    const env = { databaseUrl: database.url, redisUrl: TEST_REDIS_URL };
    a = await startTestGateway({ dataDir, env, file: FILE });
    b = await startTestGateway({ dataDir, env, file: FILE });
  });
  afterAll(async () => {
    await Promise.all([a?.stop({ keepData: true }), b?.stop({ keepData: true })]);
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('50 streams spread over both instances spend no more than the one budget', async () => {
    const { key, secret } = await a.deps.keys.create({ name: 'shared budget', budgetUsd: 0.2 });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a : b, 'POST', '/v1/chat/completions', streamBody, bearer(secret))));
    const admitted = answers.filter((x) => x.status === 200).length;
    expect(admitted, JSON.stringify(answers.find((x) => x.status !== 200)?.json)).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(5);
    await b.deps.usage.flush();
    expect(await spentBy(a, key.id)).toBeLessThanOrEqual(0.2);
  });
});

describe('what the worst case leaves out (issue 23 items 5 and 11)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: {
        // A 10-token answer holds 0.04 USD; the simulator's reasoning (about 20 tokens) comes on top.
        // The prompt price makes each message's template tokens show.
        prices: { 'beta-seed-2.0-pro': { completion_per_1m: 4_000 }, 'delta-4.1': { prompt_per_1m: 900 } },
      },
    });
  });
  afterAll(() => gateway.stop());

  it('20 parallel requests with max_tokens 10 on a reasoning model overrun a 1 USD key by at most one request (item 5)', async () => {
    const { key, secret } = await gateway.deps.keys.create({ name: 'reasoning', budgetUsd: 1 });
    const body = { model: 'beta-seed-2.0-pro', messages: [{ role: 'user', content: 'think about it' }], max_tokens: 10 };
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(gateway, 'POST', '/v1/chat/completions', body, bearer(secret))));
    const answered = answers.filter((a) => a.status === 200);
    const perRequest = Math.max(0, ...answered.map((a) => (a.json.usage.completion_tokens * 4_000) / 1e6));
    expect(await spentBy(gateway, key.id)).toBeLessThanOrEqual(1 + perRequest + 1e-9);
    // The refusal says why: the model may reason up to its ceiling before it answers.
    const refused = answers.find((a) => a.status === 429);
    if (refused) expect(refused.json.error.message).toContain('reason');

    // With thinking turned off the answer's maximum is the whole worst case: 0.04 USD, so they fit.
    const quiet = await call(gateway, 'POST', '/v1/chat/completions', { ...body, thinking: { type: 'disabled' } }, bearer(secret));
    expect(quiet.status, quiet.text).toBe(200);
    expect(quiet.json.usage.completion_tokens_details?.reasoning_tokens ?? 0).toBe(0);
  });

  it('one request at a time never spends past the budget: the worst case counts the chat template (item 11)', async () => {
    const { key, secret } = await gateway.deps.keys.create({ name: 'template', budgetUsd: 1 });
    // 60 one-word messages: 60 tokens of text, and about four template tokens around each.
    const messages = Array.from({ length: 60 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'ok' }));
    let answered = 0;
    for (let i = 0; i < 20; i++) {
      const answer = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages, max_tokens: 1 }, bearer(secret));
      if (answer.status !== 200) {
        expect(answer.status).toBe(429);
        break;
      }
      answered += 1;
    }
    expect(answered).toBeGreaterThan(0);
    expect(await spentBy(gateway, key.id)).toBeLessThanOrEqual(1);
  });
});
