import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/server.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/** Issue 3: a channel routes delta-4.1 to Gemini; chat requests are translated to generateContent. */
describe('chat completions on a channel configured to Gemini (issue 3)', () => {
  let gateway: TestGateway;
  let upstream: RunningSimulator;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: { channels: [{ name: 'gem', vendor: 'gemini', api_key: 'simulator-key', max_retries: 0, models: { 'delta-4.1': 'gemini-2.5-flash-lite' } }] },
    });
    upstream = gateway.deps.simulators.get('gem')!;
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterEach(() => upstream.setOptions({}));
  afterAll(() => gateway.stop());

  const last = () => upstream.requests[upstream.requests.length - 1]!;

  it('answers chat.completions.create through generateContent, the key in a header and never in the URL', async () => {
    const completion = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [
        { role: 'developer', content: 'Answer briefly.' },
        { role: 'user', content: 'Hello from chat' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'user', content: 'Say more about Gemini' },
      ],
      max_completion_tokens: 200,
      temperature: 0.4,
      top_p: 0.9,
      stop: ['zzz'],
      seed: 7,
      frequency_penalty: 0,
    });
    const sent = last();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-lite:generateContent');
    expect(sent.query).toEqual({});
    expect(sent.headers['x-goog-api-key']).toBe('simulator-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hello from chat' }] },
        { role: 'model', parts: [{ text: 'Hi.' }] },
        { role: 'user', parts: [{ text: 'Say more about Gemini' }] },
      ],
      systemInstruction: { parts: [{ text: 'Answer briefly.' }] },
      generationConfig: { maxOutputTokens: 200, temperature: 0.4, topP: 0.9, stopSequences: ['zzz'], seed: 7 },
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('delta-4.1');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message.content).toMatch(/^This is a simulated reply from gemini-2\.5-flash-lite\. You said: "Say more about Gemini"/);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
  });

  it('streams through streamGenerateContent?alt=sse with the usage chunk and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'Stream from chat' }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    let roles = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.role) roles++;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    const sent = last();
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-lite:streamGenerateContent');
    expect(sent.query).toEqual({ alt: 'sse' });
    expect(sent.headers['x-goog-api-key']).toBe('simulator-key');
    expect(sent.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Stream from chat' }] }], generationConfig: { maxOutputTokens: 12 } });
    expect(roles).toBe(1);
    expect(text).toMatch(/^This is a simulated reply from gemini/);
    expect(finish).toBe('length');
    expect(usage?.completion_tokens).toBe(12);
  });

  it('maps tools both ways: functionDeclarations out, functionCall back as tool_calls, functionResponse in', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'lookup', description: 'Look it up', parameters: { type: 'object', properties: { query: { type: 'string' } }, additionalProperties: false } } },
    ];
    const first = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Weather?' }], tools, tool_choice: 'required' });
    expect(last().body).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'lookup', description: 'Look it up', parametersJsonSchema: tools[0]!.function.parameters }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('lookup');
    // Arguments are sampled from the tool's JSON Schema (issue 16): an object with a string query, nothing else.
    const args = JSON.parse(call.type === 'function' ? call.function.arguments : '{}') as Record<string, unknown>;
    expect(Object.keys(args)).toEqual(['query']);
    expect(typeof args.query).toBe('string');

    const second = await client.chat.completions.create({
      model: 'delta-4.1',
      tools,
      messages: [{ role: 'user', content: 'Weather?' }, choice.message, { role: 'tool', tool_call_id: call.id, content: 'Sunny' }],
    });
    expect((last().body as { contents: unknown }).contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'lookup', args } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { output: 'Sunny' } } }] },
    ]);
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content).toContain('Sunny');
  });

  it('streams a tool call as one tool_calls delta when the prompt names the function', async () => {
    const stream = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'Call lookup now' }],
      tools: [{ type: 'function', function: { name: 'lookup' } }],
      stream: true,
    });
    const calls: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    // No parameters declared: the schema-sampled arguments are an empty object (issue 16).
    expect(calls).toEqual([{ index: 0, id: expect.stringMatching(/^call_req_/), type: 'function', function: { name: 'lookup', arguments: '{}' } }]);
    expect(finish).toBe('tool_calls');
    expect((last().body as { tools: unknown }).tools).toEqual([{ functionDeclarations: [{ name: 'lookup' }] }]);
  });

  it('n → candidateCount, one choice per candidate', async () => {
    const completion = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Two please' }], n: 2 });
    expect((last().body as { generationConfig: unknown }).generationConfig).toEqual({ candidateCount: 2 });
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(completion.choices[0]!.message.content).not.toBe(completion.choices[1]!.message.content);
  });

  it('json_object → responseMimeType application/json', async () => {
    await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'JSON please' }], response_format: { type: 'json_object' } });
    expect((last().body as { generationConfig: unknown }).generationConfig).toEqual({ responseMimeType: 'application/json' });
  });

  it("a non-zero penalty is sent, and Gemini 2.5's refusal reaches the client as a 400", async () => {
    const error = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'x' }], presence_penalty: 0.5 }).catch((e: unknown) => e);
    expect((last().body as { generationConfig: unknown }).generationConfig).toEqual({ presencePenalty: 0.5 });
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({ code: 'invalid_request', message: expect.stringContaining('Penalty is not enabled') });
  });

  it('refuses a tool result for an unknown call with a 400 naming the field, before calling upstream', async () => {
    const before = upstream.requests.length;
    const error = await client.chat.completions
      .create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_nope', content: 'y' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toEqual({ code: 'invalid_parameter', message: expect.stringContaining("'messages[1].tool_call_id'") });
    expect(upstream.requests.length).toBe(before);
  });

  it('a stream cut mid-way ends with an error the SDK raises, never a quiet finish', async () => {
    upstream.setOptions({ cut_stream_after: 2, tokens_per_second: 2000 });
    const stream = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Cut me off' }], stream: true });
    let finish: string | null = null;
    const failure = await (async () => {
      for await (const chunk of stream) finish = chunk.choices[0]?.finish_reason ?? finish;
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(finish).toBeNull();
  });

  it("the simulator holds the gateway to Gemini's function-turn rules, as the real API does", async () => {
    const post = (contents: unknown) =>
      fetch(`${upstream.url}/v1beta/models/gemini-2.5-flash-lite:generateContent`, {
        method: 'POST',
        headers: { 'x-goog-api-key': 'k', 'content-type': 'application/json' },
        body: JSON.stringify({ contents }),
      });
    const call = { functionCall: { name: 'f', args: {} } };
    const result = { functionResponse: { name: 'f', response: { output: 'x' } } };
    const orphan = await post([{ role: 'user', parts: [{ text: 'q' }] }, { role: 'user', parts: [result] }]);
    expect(orphan.status).toBe(400);
    expect(((await orphan.json()) as { error: { message: string } }).error.message).toMatch(/function response turn comes immediately after a function call turn/);
    const short = await post([{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: [call, call] }, { role: 'user', parts: [result] }]);
    expect(short.status).toBe(400);
    const ok = await post([{ role: 'user', parts: [{ text: 'q' }] }, { role: 'model', parts: [call, call] }, { role: 'user', parts: [result, result] }]);
    expect(ok.status).toBe(200);
  });
});
