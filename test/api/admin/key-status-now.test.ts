import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { consoleCall, inviteUser } from '../../helpers/console.js';
import { TEST_REDIS_URL } from '../../helpers/services.js';

const chat = (gateway: { url: string }, secret: string, model = 'delta-4.1', maxTokens = 5) =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: maxTokens }, bearer(secret));

/**
 * A key's status right now (issue 35): besides revoked/disabled/expired, whether a per-minute
 * window (rpm or tpm) is used up, on which model and until when; and for a key with a budget, what
 * requests in progress hold of it.
 */
describe('a key reads "rate-limited now" while a per-minute window is used up (issue 35)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
  });
  afterAll(() => gateway?.stop());

  it('rpm: the request that uses the last one marks the key, with the model, the limit and the window\'s end', async () => {
    const { id, key } = await createKey(gateway, { rpm: 2 });
    expect((await admin(gateway, 'GET', `/keys/${id}`)).json.rate_limited).toBeNull();
    expect((await chat(gateway, key)).status).toBe(200);
    expect((await admin(gateway, 'GET', `/keys/${id}`)).json.rate_limited).toBeNull();
    expect((await chat(gateway, key)).status).toBe(200);
    const view = (await admin(gateway, 'GET', `/keys/${id}`)).json;
    expect(view).toMatchObject({ status: 'active', rate_limited: { kind: 'requests', model: 'delta-4.1', limit: 2, until: expect.any(String) } });
    const until = Date.parse(view.rate_limited.until);
    expect(until).toBeGreaterThan(Date.now());
    expect(until).toBeLessThanOrEqual(Date.now() + 60_000);
    // The refusal keeps it; another model's window is its own.
    expect((await chat(gateway, key)).status).toBe(429);
    expect((await chat(gateway, key, 'epsilon-4.7')).status).toBe(200);
    expect((await admin(gateway, 'GET', '/keys')).json.data.find((k: { id: string }) => k.id === id).rate_limited).toMatchObject({ kind: 'requests', model: 'delta-4.1' });
  });

  it('tpm: a refusal for tokens marks the key too; a key without limits never is', async () => {
    const { id, key } = await createKey(gateway, { tpm: 50 });
    expect((await chat(gateway, key, 'delta-4.1', 5)).status).toBe(200);
    const refused = await chat(gateway, key, 'delta-4.1', 4000);
    expect(refused.status).toBe(429);
    expect((await admin(gateway, 'GET', `/keys/${id}`)).json.rate_limited).toMatchObject({ kind: 'tokens', model: 'delta-4.1', limit: 50 });

    const free = await createKey(gateway, {});
    for (let i = 0; i < 3; i++) expect((await chat(gateway, free.key)).status).toBe(200);
    expect((await admin(gateway, 'GET', `/keys/${free.id}`)).json.rate_limited).toBeNull();
  });

  it('the key holder sees it on their own keys too', async () => {
    const person = await inviteUser(gateway, { name: 'Rita' });
    const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'mine', rpm: 1 }, { session: person.session });
    expect(created.status, created.text).toBe(201);
    expect((await chat(gateway, created.json.key)).status).toBe(200);
    const own = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: person.session });
    expect(own.json.data.find((k: { id: string }) => k.id === created.json.id).rate_limited).toMatchObject({ kind: 'requests', limit: 1 });
  });

  it('a budgeted key shows what requests in progress hold of its budget: nothing once they ended', async () => {
    const { id, key } = await createKey(gateway, { budget_usd: 1 });
    expect((await chat(gateway, key)).status).toBe(200);
    const view = (await admin(gateway, 'GET', `/keys/${id}`)).json;
    expect(view.held_usd).toBe(0);
    expect(view.spent_usd).toBeGreaterThan(0);
  });
});

describe('"rate-limited now" on every instance sharing Redis (issue 35)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-limited-'));
  let first: TestGateway;
  let second: TestGateway;
  let redis: Redis;
  const keyIds: string[] = [];
  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    first = await startTestGateway({ dataDir, env: { redisUrl: TEST_REDIS_URL } });
    second = await startTestGateway({ dataDir, env: { redisUrl: TEST_REDIS_URL } });
  });
  afterAll(async () => {
    for (const id of keyIds) {
      const names = await redis.keys(`gw:rl:*${id}*`);
      if (names.length > 0) await redis.del(...names);
    }
    await redis.quit();
    await second?.stop({ keepData: true });
    await first?.stop();
  });

  it('a window used up through one instance reads "rate-limited" on the other', async () => {
    const { id, key } = await createKey(first, { rpm: 1 });
    keyIds.push(id);
    expect((await chat(first, key)).status).toBe(200);
    expect((await admin(second, 'GET', `/keys/${id}`)).json.rate_limited).toMatchObject({ kind: 'requests', model: 'delta-4.1', limit: 1 });
    expect(await redis.pttl(`gw:rl:limited-now:${id}`)).toBeGreaterThan(0);
  });
});
