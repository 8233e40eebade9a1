import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

describe('usage events for chat requests (issue 2 data flow)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  const events = async () => {
    await gateway.deps.usage.flush();
    return gateway.deps.db.selectFrom('usage_events').selectAll().orderBy('id').execute();
  };

  it('records one event per request with the tokens the upstream reported', async () => {
    const ok = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'count me' }] });
    const bad = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [] });
    const stream = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'epsilon-4.7', messages: [{ role: 'user', content: 'stream me' }], stream: true }),
    });
    await stream.text();
    await expect.poll(async () => (await events()).length).toBe(3);
    const [first, second, third] = await events();
    expect(first).toMatchObject({ model: 'delta-4.1', family: 'chat-completions', status: 200, outcome: 'success', channel: 'simulator-openai' });
    expect(first!.prompt_tokens).toBe(ok.json.usage.prompt_tokens);
    expect(first!.completion_tokens).toBe(ok.json.usage.completion_tokens);
    expect(second).toMatchObject({ status: 400, outcome: 'error', prompt_tokens: 0 });
    expect(bad.status).toBe(400);
    expect(third).toMatchObject({ model: 'epsilon-4.7', status: 200, outcome: 'success' });
    expect(third!.reasoning_tokens).toBeGreaterThan(0);
    expect(third!.ttft_ms).not.toBeNull();
  });
});
