import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/** The official openai SDK against the running gateway, every chat family, stream and not. */
describe('chat completions through the openai SDK (issue 2)', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway();
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  it('family A: a completion with usage, n choices and the model echoed', async () => {
    const completion = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello gateway' }],
      n: 2,
      frequency_penalty: 0.5,
      user: 'user-1',
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('delta-4.1');
    expect(completion.choices).toHaveLength(2);
    expect(completion.choices[0]!.message.content).toContain('Hello gateway');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    const sent = gateway.deps.simulators.get('simulator-openai')!.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body).toMatchObject({ model: 'gpt-4.1', n: 2, frequency_penalty: 0.5, user: 'user-1' });
    expect(sent.headers.authorization).toBe('Bearer simulator-key');
  });

  it('family A: max_tokens gives finish_reason length, a stop sequence gives stop', async () => {
    const short = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Count to ten' }], max_tokens: 3 });
    expect(short.choices[0]!.finish_reason).toBe('length');
    expect(short.usage!.completion_tokens).toBe(3);
    const stopped = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'alpha STOPHERE omega' }], stop: ['STOPHERE'] });
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
    expect(stopped.choices[0]!.message.content).not.toContain('STOPHERE');
  });

  it('family A: function tools produce a tool call; JSON mode produces JSON', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } } },
    ];
    const called = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'required' });
    expect(called.choices[0]!.finish_reason).toBe('tool_calls');
    expect(called.choices[0]!.message.tool_calls![0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    const json = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'json please' }], response_format: { type: 'json_object' } });
    expect(() => JSON.parse(json.choices[0]!.message.content!)).not.toThrow();
  });

  it('family B: multimodal parts, reasoning_content and reasoning tokens', async () => {
    const completion = await client.chat.completions.create({
      model: 'beta-seed-2.0-pro',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ],
      stop: ['a', 'b', 'c', 'd'].map((s) => `zz${s}zz`),
    });
    const message = completion.choices[0]!.message as typeof completion.choices[0]['message'] & { reasoning_content?: string };
    expect(message.reasoning_content).toEqual(expect.any(String));
    expect(message.reasoning_content!.length).toBeGreaterThan(0);
    expect(completion.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    const sent = gateway.deps.simulators.get('simulator-volcengine-ark')!.requests.at(-1)!;
    expect(sent.path).toBe('/api/v3/chat/completions');
    expect((sent.body as { model: string }).model).toBe('doubao-seed-2-0-pro-260215');
  });

  it('family C and epsilon-4.7 stream with reasoning deltas and the usage chunk', async () => {
    for (const model of ['beta-seed-1-6-lite-251015', 'epsilon-4.7']) {
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Stream please' }],
        max_tokens: 8192,
        stream: true,
        stream_options: { include_usage: true },
      });
      let content = '';
      let reasoning = '';
      let usage: OpenAI.CompletionUsage | undefined | null;
      let finish: string | null = null;
      for await (const chunk of stream) {
        expect(chunk.model).toBe(model);
        const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
        content += delta?.content ?? '';
        reasoning += delta?.reasoning_content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(content).toContain('Stream please');
      expect(reasoning.length).toBeGreaterThan(0);
      expect(finish).toBe('stop');
      expect(usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    }
  });

  it('a stream without include_usage carries no usage at all', async () => {
    const stream = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
    // The gateway still asked the upstream for usage so it can account the request.
    const sent = gateway.deps.simulators.get('simulator-openai')!.requests.at(-1)!;
    expect(sent.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('surfaces errors as SDK APIError with the status', async () => {
    const error = await client.chat.completions.create({ model: 'delta-4.1', messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const unauthorised = new OpenAI({ apiKey: 'sk-gw-wrong', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const denied = await unauthorised.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
