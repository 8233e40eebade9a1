import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/server.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { call, startTestGateway, TEST_ADMIN_TOKEN, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/**
 * /v1/messages in Anthropic's own protocol (issue 20): the official Anthropic SDK against the
 * gateway on its embedded defaults, where the alpha models are served by the Anthropic simulator.
 */
const MODEL = 'alpha-sonnet-4-5-20250929';
const ANTHROPIC_HEADERS = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };

const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('Anthropic-native /v1/messages on an Anthropic channel (issue 20)', () => {
  let gateway: TestGateway;
  let upstream: RunningSimulator;
  let client: Anthropic;
  beforeAll(async () => {
    gateway = await startTestGateway();
    upstream = gateway.deps.simulators.get('simulator-anthropic')!;
    client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.url, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());
  const lastUpstream = () => upstream.requests.at(-1)!;

  it('answers messages.create with a message of content blocks, stop_reason and usage', async () => {
    const message = await client.messages.create({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Hello from the Anthropic SDK' }] });
    expect(message.type).toBe('message');
    expect(message.model).toBe(MODEL);
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Hello from the Anthropic SDK') });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message.usage.cache_read_input_tokens).toBe(0);
    expect(lastUpstream().body).toMatchObject({ model: 'claude-sonnet-4-5-20250929' });
  });

  it('keeps a top-level system, as a string and as blocks with cache_control', async () => {
    await client.messages.create({ model: MODEL, max_tokens: 50, system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] });
    expect((lastUpstream().body as { system: unknown }).system).toBe('Be brief.');
    const system = [
      { type: 'text' as const, text: 'You are a coding agent.' },
      { type: 'text' as const, text: 'Project rules.', cache_control: { type: 'ephemeral' as const } },
    ];
    const message = await client.messages.create({ model: MODEL, max_tokens: 50, system, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content.length).toBeGreaterThan(0);
    expect((lastUpstream().body as { system: unknown }).system).toEqual(system);
  });

  it('streams named events that messages.stream assembles into the final message', async () => {
    const stream = client.messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'Stream to me' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).toContain('content_block_delta');
    expect(message.model).toBe(MODEL);
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Stream to me') });
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('runs a tool loop with Anthropic-shaped tools: tool_use, then a tool_result turn answered with text', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 300, tools: [weatherTool], messages });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: expect.any(String) } });
    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse!.id, content: [{ type: 'text', text: 'Sunny, 21 C' }], cache_control: { type: 'ephemeral' } }] });
    const second = await client.messages.create({ model: MODEL, max_tokens: 300, tools: [weatherTool], messages });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Sunny, 21 C') });
  });

  it('streams a tool call as input_json_delta events', async () => {
    const stream = client.messages.stream({ model: MODEL, max_tokens: 300, tools: [weatherTool], tool_choice: { type: 'tool', name: 'get_weather' }, messages: [{ role: 'user', content: 'Use the tool.' }] });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.at(-1)).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: expect.any(String) } });
  });

  it('sends the body upstream byte for byte (model aside), so signed thinking blocks come back intact', async () => {
    const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
    const first = await client.messages.create({ model: MODEL, max_tokens: 2000, thinking, messages: [{ role: 'user', content: 'Think about it' }] });
    const block = first.content[0]!;
    expect(block).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^sig_/) });
    // Unusual spacing and escapes: a re-serialised body would differ from what the client sent.
    const history = JSON.stringify([
      { role: 'user', content: 'Think about it' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: 'And now? caf\u00e9' },
    ]).replace('And now? café', 'And now? caf\\u00e9');
    const text = `{ "model" : "${MODEL}",\n  "max_tokens": 2000, "thinking": {"type":"enabled","budget_tokens":1024},\n  "messages": ${history} }`;
    const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { ...ANTHROPIC_HEADERS, 'content-type': 'application/json', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
      body: text,
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const sent = lastUpstream();
    expect(sent.text).toBe(text.replace(`"${MODEL}"`, '"claude-sonnet-4-5-20250929"'));
    expect(sent.query).toEqual({ beta: 'true' });
    expect(sent.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
  });

  it('a changed thinking block fails upstream as it would at Anthropic (the simulator checks signatures)', async () => {
    const response = await call(
      gateway,
      'POST',
      '/v1/messages',
      {
        model: MODEL,
        max_tokens: 2000,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'edited', signature: 'sig_forged' }, { type: 'text', text: 'y' }] },
          { role: 'user', content: 'z' },
        ],
      },
      ANTHROPIC_HEADERS,
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it("takes Claude Code's request: context_management with its beta flag, adaptive thinking, effort, metadata", async () => {
    const response = await call(
      gateway,
      'POST',
      '/v1/messages?beta=true',
      {
        model: MODEL,
        max_tokens: 32000,
        stream: true,
        system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
        // Claude Code 2.1 sends its environment as a system turn right after the prompt.
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Say hi', cache_control: { type: 'ephemeral' } }] },
          { role: 'system', content: [{ type: 'text', text: '<env>cwd: /tmp/project</env>' }] },
        ],
        tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }],
        metadata: { user_id: 'user_abc_account__session_123' },
        thinking: { type: 'adaptive', display: 'omitted' },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        output_config: { effort: 'high' },
      },
      { ...ANTHROPIC_HEADERS, 'anthropic-beta': 'claude-code-20250219,context-management-2025-06-27', 'x-claude-code-session-id': 'session-1' },
    );
    expect(response.status, response.text).toBe(200);
    expect(response.text).toContain('event: message_start');
    expect(response.text.trim().endsWith('data: {"type":"message_stop"}')).toBe(true);
    expect(lastUpstream().headers['anthropic-beta']).toBe('claude-code-20250219,context-management-2025-06-27');
    expect(response.text).not.toContain('tool_use');
  });

  it('counts tokens with messages.countTokens', async () => {
    const small = await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    const large = await client.messages.countTokens({ model: MODEL, system: 'A long system prompt. '.repeat(50), tools: [weatherTool], messages: [{ role: 'user', content: 'hi' }] });
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(large.input_tokens).toBeGreaterThan(small.input_tokens + 200);
  });

  it('counts and answers a prompt holding the tokenizer\'s special tokens as text (issue 44): no 500, no 502', async () => {
    const content = 'Repeat after me: <|endoftext|><|im_start|>system';
    const counted = await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content }] });
    expect(counted.input_tokens).toBeGreaterThan(5);
    const message = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content }] });
    expect(message.usage.input_tokens).toBeGreaterThan(5);
    const chat = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content }] });
    expect(chat.status, chat.text).toBe(200);
  });

  it('counts count_tokens under the key\'s rpm like every other call (issue 34)', async () => {
    const created = await call(gateway, 'POST', '/admin/api/keys', { name: 'two a minute', rpm: 2 }, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
    expect(created.status, created.text).toBe(201);
    const limited = new Anthropic({ apiKey: created.json.key, baseURL: gateway.url, maxRetries: 0 });
    const ask = () => limited.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    await ask();
    await limited.messages.create({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    const refused = await ask().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect((refused as InstanceType<typeof Anthropic.RateLimitError>).headers.get('retry-after')).toBeTruthy();
  });

  it("lists models in Anthropic's shape for Anthropic clients (models.list, models.retrieve)", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain(MODEL);
    expect(ids).toContain('delta-4.1');
    expect(ids).not.toContain('zeta-1.0-r2v');
    const model = await client.models.retrieve(MODEL);
    expect(model).toMatchObject({ type: 'model', id: MODEL, display_name: MODEL, created_at: expect.stringMatching(/^\d{4}-/) });
  });

  it('takes the key as x-api-key or Authorization: Bearer', async () => {
    const bearer = new Anthropic({ authToken: TEST_KEY, apiKey: null, baseURL: gateway.url, maxRetries: 0 });
    const message = await bearer.messages.create({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.type).toBe('message');
  });

  it("answers errors in Anthropic's envelope, which the SDK raises as its typed errors", async () => {
    const stranger = new Anthropic({ apiKey: 'sk-gw-wrong', baseURL: gateway.url, maxRetries: 0 });
    await expect(stranger.messages.create({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(client.messages.create({ model: 'no-such-model', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    const bad = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, ANTHROPIC_HEADERS);
    expect(bad.status).toBe(400);
    assertEnvelope('anthropic', bad.json);
    expect(bad.json.error).toEqual({ type: 'invalid_request_error', message: "'max_tokens' is required" });
    const block = await call(gateway, 'POST', '/v1/messages', { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text' }] }] }, ANTHROPIC_HEADERS);
    expect(block.status).toBe(400);
    expect(block.json.error.message).toBe("'messages[0].content[0].text' is required");
    const missing = await call(gateway, 'POST', '/v1/messages', { model: MODEL, max_tokens: 10, messages: [] }, { 'anthropic-version': '2023-06-01' });
    expect(missing.status).toBe(401);
    assertEnvelope('anthropic', missing.json);
    expect(missing.json.error.type).toBe('authentication_error');
  });

  it('leaves the spec contract of /v1/messages unchanged without anthropic-version', async () => {
    const response = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(response.json.object).toBe('chat.completion');
    const invalid = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(invalid.status).toBe(400);
    assertEnvelope('chat', invalid.json);
  });
});

describe('Anthropic-native /v1/messages on an OpenAI-style channel (issue 20)', () => {
  let gateway: TestGateway;
  let client: Anthropic;
  beforeAll(async () => {
    gateway = await startTestGateway();
    client = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.url, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());
  const lastUpstream = () => gateway.deps.simulators.get('simulator-openai')!.requests.at(-1)!;

  it('translates a request with system blocks and answers a message', async () => {
    const message = await client.messages.create({
      model: 'delta-4.1',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hello across protocols' }] },
        { role: 'system', content: [{ type: 'text', text: 'Env: linux' }] } as unknown as Anthropic.MessageParam,
      ],
    });
    expect(message).toMatchObject({ type: 'message', model: 'delta-4.1', stop_reason: 'end_turn' });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Hello across protocols') });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(lastUpstream().body).toMatchObject({
      model: 'gpt-4.1',
      max_tokens: 100,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hello across protocols' }] },
        { role: 'system', content: 'Env: linux' },
      ],
    });
  });

  it('runs a streamed tool loop: tool_use events, then the tool_result turn as a tool message', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await client.messages.stream({ model: 'delta-4.1', max_tokens: 300, tools: [weatherTool], messages }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use')!;
    expect(toolUse).toMatchObject({ name: 'get_weather', input: { city: expect.any(String) } });
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'Rain, 12 C' }] });
    const second = await client.messages.stream({ model: 'delta-4.1', max_tokens: 300, tools: [weatherTool], messages }).finalMessage();
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Rain, 12 C') });
    expect(second.usage.output_tokens).toBeGreaterThan(0);
    const sent = lastUpstream().body as { messages: Array<Record<string, unknown>> };
    expect(sent.messages.at(-2)).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ id: toolUse.id, type: 'function', function: { name: 'get_weather' } }] });
    expect(sent.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: toolUse.id, content: 'Rain, 12 C' });
  });

  it('refuses what a chat channel cannot carry with a 400 that names it', async () => {
    const response = await call(
      gateway,
      'POST',
      '/v1/messages',
      { model: 'delta-4.1', max_tokens: 100, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'hi' }] },
      ANTHROPIC_HEADERS,
    );
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining("'tools[0].type'") });
    const topK = await call(gateway, 'POST', '/v1/messages', { model: 'delta-4.1', max_tokens: 100, top_k: 5, messages: [{ role: 'user', content: 'hi' }] }, ANTHROPIC_HEADERS);
    expect(topK.status).toBe(400);
    expect(topK.json.error.message).toContain("'top_k'");
  });
});
