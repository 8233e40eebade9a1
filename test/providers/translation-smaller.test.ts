import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { startCannedUpstream, type CannedUpstream } from '../helpers/canned-upstream.js';
import type { UsageEvent } from '../../src/usage/usage-recorder.js';

/** Issue 33's smaller rows: tool_result.is_error on chat, and a cut Anthropic stream billed for what was relayed. */
describe('translation integrity, smaller rows (issue 33)', () => {
  let gateway: TestGateway;
  let anthropic: CannedUpstream;
  const DELTAS = 40;
  beforeAll(async () => {
    // An Anthropic stream cut after its deltas: no message_delta, no message_stop.
    anthropic = await startCannedUpstream(() => ({
      sse: [
        { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        ...Array.from({ length: DELTAS }, (_, i) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `word number ${i} of a long answer ` } } })),
      ],
    }));
    gateway = await startTestGateway({
      file: {
        channels: [
          { name: 'chat', vendor: 'openai', models: { 'alpha-sonnet-4-5-20250929': 'gpt-4.1' }, max_retries: 0 },
          { name: 'cut-claude', vendor: 'anthropic', base_url: anthropic.url, api_key: 'k', models: { 'alpha-opus-4-20250514': 'claude-opus-4-20250514' }, max_retries: 0 },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await anthropic.close();
  });
  const headers = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };

  it('keeps tool_result.is_error on the way to chat (the tool message says the call failed)', async () => {
    const answer = await call(
      gateway,
      'POST',
      '/v1/messages',
      {
        model: 'alpha-sonnet-4-5-20250929',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'run it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: 'command not found' }] },
        ],
        tools: [{ name: 'bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
      },
      headers,
    );
    expect(answer.status).toBe(200);
    const sent = gateway.deps.simulators.get('chat')!.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.find((message) => message.role === 'tool')!.content).toBe('Error: command not found');
  });

  it('bills a cut Anthropic stream for the deltas relayed, not the 1 of message_start', async () => {
    const events: UsageEvent[] = [];
    const stop = gateway.deps.usage.subscribe((event) => events.push(event));
    try {
      const answer = await call(gateway, 'POST', '/v1/messages', { model: 'alpha-opus-4-20250514', max_tokens: 500, stream: true, messages: [{ role: 'user', content: 'talk' }] }, headers);
      expect(answer.text).toContain('word number 39');
      expect(answer.text).toContain('event: error');
      for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const event = events[0] as unknown as { completion_tokens: number; prompt_tokens: number };
      expect(event.prompt_tokens).toBe(12);
      // 40 deltas of ~7 words each: far more than one token.
      expect(event.completion_tokens).toBeGreaterThan(DELTAS * 3);
    } finally {
      stop();
    }
  });
});
