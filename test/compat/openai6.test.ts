import OpenAI from 'openai6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/** The previous major of `openai` (6.x), while apps still use it (issue 16). */
describe('compat: openai 6.x', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('chat, stream with usage and a tool call', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hello six' }] });
    expect(completion.choices[0]!.message.content).toContain('Hello six');
    const stream = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Stream six' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let total = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      total = chunk.usage?.total_tokens ?? total;
    }
    expect(text).toContain('Stream six');
    expect(total).toBeGreaterThan(0);
    const called = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
    });
    const call = called.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && typeof JSON.parse(call.function.arguments).city).toBe('string');
  });
});
