import OpenAI, { RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 35: a spent budget is a final answer. The refusal carries no Retry-After and says
 * `x-should-retry: false`, so the `openai` SDK (default two retries) surfaces it on the first
 * call instead of retrying it, and the request log gets one row, not three.
 */
describe('budget refusals are final', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 1_000, completion_per_1m: 1_000 } } } });
  });
  afterAll(() => gateway.stop());

  it('the openai SDK with its default retries sends a refused request once', async () => {
    const { secret } = await gateway.deps.keys.create({ name: 'tiny budget', budgetUsd: 0.000001 });
    let sent = 0;
    const client = new OpenAI({
      apiKey: secret,
      baseURL: `${gateway.url}/v1`,
      fetch: (url, init) => {
        sent++;
        return fetch(url, init);
      },
    });
    const error = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hello' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).code).toBe('insufficient_quota');
    expect(sent).toBe(1);
  });

  it('the refusal has no Retry-After while an rpm refusal keeps one', async () => {
    const broke = await gateway.deps.keys.create({ name: 'broke', budgetUsd: 0.000001 });
    const refused = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'Hi' }] }, { authorization: `Bearer ${broke.secret}` });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('x-should-retry')).toBe('false');

    const slow = await gateway.deps.keys.create({ name: 'one a minute', rpm: 1 });
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1 };
    expect((await call(gateway, 'POST', '/v1/chat/completions', body, { authorization: `Bearer ${slow.secret}` })).status).toBe(200);
    const limited = await call(gateway, 'POST', '/v1/chat/completions', body, { authorization: `Bearer ${slow.secret}` });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-should-retry')).toBeNull();
  });
});
