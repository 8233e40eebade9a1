import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/** A 1×1 PNG, as a screenshot tool would return it (much smaller). */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const DATA_URL = `data:image/png;base64,${PNG}`;

/**
 * Issue 33: a tool's image result (a screenshot, Codex's `view_image`) reaches the model as an
 * image on every protocol pair: in Anthropic's tool_result blocks (the fake Anthropic checks their
 * place and shape as the API does), or as a user message after the tool messages on chat; never
 * as base64 text, never dropped. A part a target cannot carry is a 400.
 */
describe('images in tool results across protocols (issue 33)', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: {
        channels: [
          { name: 'claude', vendor: 'anthropic', models: { 'delta-4.1': 'claude-sonnet-4-5-20250929', 'beta-seed-2.0-pro': 'claude-sonnet-4-5-20250929' }, max_retries: 0 },
          { name: 'chat-only', vendor: 'openai', responses: 'translate', models: { 'beta-seed-2.0-code': 'gpt-4.1' }, max_retries: 0 },
        ],
      },
    });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());
  const lastBody = (channel: string) => gateway.deps.simulators.get(channel)!.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };

  const toolCall = { id: 'call_1', type: 'function' as const, function: { name: 'screenshot', arguments: '{}' } };

  it('chat tool message with an image part → Anthropic tool_result image block', async () => {
    const answer = await client.chat.completions.create({
      model: 'beta-seed-2.0-pro',
      messages: [
        { role: 'user', content: 'What is on screen?' },
        { role: 'assistant', content: null, tool_calls: [toolCall] },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'screen:' }, { type: 'image_url', image_url: { url: DATA_URL } }] as never },
      ],
      tools: [{ type: 'function', function: { name: 'screenshot', parameters: { type: 'object', properties: {} } } }],
    });
    expect(answer.choices[0]!.message).toBeDefined();
    const turn = lastBody('claude').messages.at(-1)!;
    expect(turn.content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'screen:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] },
    ]);
  });

  const viewImage = (model: string) =>
    client.responses.create({
      model,
      input: [
        { role: 'user', content: 'Look at the chart' },
        { type: 'function_call', call_id: 'call_v', name: 'view_image', arguments: '{"path":"chart.png"}' },
        { type: 'function_call_output', call_id: 'call_v', output: [{ type: 'input_image', image_url: DATA_URL }] as never },
      ],
      tools: [{ type: 'function', name: 'view_image', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false }],
    });

  it('Responses function_call_output with input_image (Codex view_image) → Anthropic: the image beside the tool result, not as text', async () => {
    await viewImage('beta-seed-2.0-pro');
    const body = lastBody('claude');
    const turn = body.messages.at(-1)! as { role: string; content: Array<Record<string, unknown>> };
    expect(turn.role).toBe('user');
    expect(turn.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_v' });
    expect(turn.content.some((block) => block.type === 'image' && (block.source as { data?: string }).data === PNG)).toBe(true);
    // The picture is never sent as text: no base64 inside any text the model reads as words.
    expect(JSON.stringify(turn.content[0])).not.toContain(PNG);
  });

  it('Responses function_call_output with input_image → chat: the image in a user message after the tool message', async () => {
    await viewImage('beta-seed-2.0-code');
    const messages = lastBody('chat-only').messages;
    const tool = messages.findIndex((message) => message.role === 'tool');
    expect(messages[tool]!.content).not.toContain(PNG);
    expect(messages[tool + 1]!.role).toBe('user');
    expect(messages[tool + 1]!.content).toEqual(expect.arrayContaining([{ type: 'image_url', image_url: { url: DATA_URL } }]));
  });

  it('refuses a tool output part the target cannot carry with a 400', async () => {
    const answer = await call(gateway, 'POST', '/v1/responses', {
      model: 'beta-seed-2.0-code',
      input: [
        { role: 'user', content: 'Listen' },
        { type: 'function_call', call_id: 'call_a', name: 'record', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_a', output: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toMatch(/input_audio/);
  });
});
