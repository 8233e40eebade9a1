import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/server.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/** The Anthropic pair also serves /v1/chat/completions when a channel routes a chat model to it. */
describe('chat completions on a channel configured to Anthropic', () => {
  let gateway: TestGateway;
  let upstream: RunningSimulator;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: { channels: [{ name: 'anthropic-chat', vendor: 'anthropic', api_key: 'sk-ant-test-channel', models: { 'delta-4.1': 'claude-sonnet-4-5-20250929' } }] },
    });
    upstream = gateway.deps.simulators.get('anthropic-chat')!;
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  const lastBody = () => upstream.requests[upstream.requests.length - 1]!.body as Record<string, unknown>;

  it('answers chat.completions.create and sends max_tokens 8192 when the client gave none', async () => {
    const completion = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [
        { role: 'developer', content: 'Answer briefly.' },
        { role: 'user', content: 'Hello from chat' },
      ],
      frequency_penalty: 0.5,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('delta-4.1');
    expect(completion.choices[0]!.message.content).toContain('Hello from chat');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(lastBody()).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 8192,
      system: 'Answer briefly.',
      messages: [{ role: 'user', content: 'Hello from chat' }],
    });
  });

  it('streams through the SDK with the usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'Stream from chat' }],
      max_tokens: 20,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let completionTokens = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
    }
    expect(text).toMatch(/^This is a simulated reply from claude-sonnet-4-5-20250929/);
    expect(finish).toBe('length');
    expect(completionTokens).toBe(20);
  });

  it('maps tools both ways: function tools out, tool_use back as tool_calls, tool results in', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup', description: 'Look it up', parameters: { type: 'object', properties: { query: { type: 'string' } } } } }];
    const first = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Weather?' }], tools, tool_choice: 'required' });
    expect(lastBody()).toMatchObject({
      tools: [{ name: 'lookup', description: 'Look it up', input_schema: tools[0]!.function.parameters }],
      tool_choice: { type: 'any' },
    });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('lookup');
    // Input sampled from the tool's input_schema (issue 16).
    const input = JSON.parse(call.type === 'function' ? call.function.arguments : '{}') as Record<string, unknown>;
    expect(typeof input.query).toBe('string');

    const second = await client.chat.completions.create({
      model: 'delta-4.1',
      tools,
      messages: [{ role: 'user', content: 'Weather?' }, choice.message, { role: 'tool', tool_call_id: call.id, content: 'Sunny' }],
    });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(lastBody().messages).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'lookup', input }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny' }] },
    ]);
  });

  it('streams a tool call as tool_calls deltas', async () => {
    const stream = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'Call lookup now' }],
      tools: [{ type: 'function', function: { name: 'lookup' } }],
      stream: true,
    });
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('lookup');
    expect(JSON.parse(args)).toEqual({}); // no properties declared: the sampled input is empty (issue 16)
    expect(finish).toBe('tool_calls');
    expect(lastBody().tools).toEqual([{ name: 'lookup', input_schema: { type: 'object', properties: {} } }]);
  });

  it('refuses n > 1 with a 400 naming n, since Anthropic returns one choice', async () => {
    const error = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'x' }], n: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({ code: 'invalid_parameter', message: expect.stringContaining("'n'") });
  });
});
