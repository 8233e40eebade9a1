import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

describe('usage events for /v1/responses (responses family)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  const events = async () => {
    await gateway.deps.usage.flush();
    return gateway.deps.db.selectFrom('usage_events').selectAll().orderBy('id').execute();
  };
  const stream = async (model: string) => {
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'count my tokens', stream: true }),
    });
    return response.text();
  };

  it('records the tokens of the final Response on both paths, streamed or not, and a cut stream as an error', async () => {
    const json = await call(gateway, 'POST', '/v1/responses', { model: 'beta-seed-1-8-251228', input: 'count me' });
    await stream('beta-seed-1-8-251228');
    await stream('epsilon-4.7');
    const zhipu = gateway.deps.simulators.get('simulator-zhipu')!;
    zhipu.setOptions({ cut_stream_after: 4, tokens_per_second: 2000 });
    await stream('epsilon-4.7');
    zhipu.setOptions({});
    await expect.poll(async () => (await events()).length).toBe(4);
    const [nonStream, arkStream, zhipuStream, cut] = await events();
    expect(nonStream).toMatchObject({ model: 'beta-seed-1-8-251228', family: 'responses', status: 200, outcome: 'success', channel: 'simulator-volcengine-ark' });
    expect(nonStream!.prompt_tokens).toBe(json.json.usage.input_tokens);
    expect(nonStream!.completion_tokens).toBe(json.json.usage.output_tokens);
    expect(nonStream!.reasoning_tokens).toBe(json.json.usage.output_tokens_details.reasoning_tokens);
    for (const row of [arkStream, zhipuStream]) {
      expect(row).toMatchObject({ family: 'responses', status: 200, outcome: 'success' });
      expect(row!.reasoning_tokens).toBeGreaterThan(0);
      expect(row!.ttft_ms).not.toBeNull();
    }
    expect(zhipuStream!.channel).toBe('simulator-zhipu');
    expect(cut).toMatchObject({ model: 'epsilon-4.7', family: 'responses', outcome: 'stream_error' });
  });
});
