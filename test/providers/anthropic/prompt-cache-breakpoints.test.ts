import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { startCannedUpstream, type CannedAnswer, type CannedUpstream } from '../../helpers/canned-upstream.js';

/**
 * Issue 33 item 5: traffic translated to an Anthropic channel (chat completions, Responses,
 * Gemini-native) carries `cache_control` breakpoints where Claude Code puts them (last tool, end
 * of system, last user turns), so a second request with the same prefix is a cache read. The
 * fake Anthropic enforces what the API does: at most 4 breakpoints, none on empty text; it caches
 * the prefix (tools, system, messages) at each breakpoint from 1024 tokens on, reads the longest
 * one written before and writes the rest up to the last breakpoint; nothing unmarked is cached.
 */
type Block = Record<string, unknown>;

const LONG_SYSTEM = `You are a careful coding agent. ${'Follow the repository conventions exactly. '.repeat(300)}`;
const TOKENS_PER_CHAR = 1 / 4;

function anthropicError(message: string): CannedAnswer {
  return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message } } };
}

/** Every block of a request in Anthropic's cache order: tools, system, then each message's blocks. */
function blocksOf(body: Record<string, unknown>): Block[] {
  const tools = (body.tools as Block[] | undefined) ?? [];
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : ((body.system as Block[] | undefined) ?? []);
  const messages = (body.messages as Array<{ content: string | Block[] }>).flatMap((m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content));
  return [...tools, ...system, ...messages];
}

function fakeAnthropic() {
  const written = new Set<string>();
  return (path: string, body: Record<string, unknown>): CannedAnswer => {
    if (path !== '/v1/messages') return { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: path } } };
    const blocks = blocksOf(body);
    const marked = blocks.map((block, index) => ({ block, index })).filter(({ block }) => block.cache_control != null);
    if (marked.length > 4) return anthropicError(`A maximum of 4 blocks with cache_control may be provided. Found ${marked.length}.`);
    if (marked.some(({ block }) => block.type === 'text' && block.text === '')) return anthropicError('messages: cache_control cannot be set for empty text blocks');
    const total = Math.ceil(JSON.stringify(blocks).length * TOKENS_PER_CHAR);
    // Each breakpoint's prefix is looked up; the longest one written before is read, the rest up to the last breakpoint written.
    const prefixes = marked.map(({ index }) => {
      const text = JSON.stringify(blocks.slice(0, index + 1).map(({ cache_control: _mark, ...rest }) => rest));
      return { key: createHash('sha256').update(text).digest('hex'), tokens: Math.ceil(text.length * TOKENS_PER_CHAR) };
    });
    const read = prefixes.filter((prefix) => written.has(prefix.key)).at(-1)?.tokens ?? 0;
    const last = prefixes.at(-1);
    const write = last && last.tokens >= 1024 ? last.tokens - read : 0;
    for (const prefix of prefixes) if (prefix.tokens >= 1024) written.add(prefix.key);
    const usage = { input_tokens: total - read - write, cache_creation_input_tokens: write, cache_read_input_tokens: read, output_tokens: 3 };
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage };
    if (body.stream !== true) return { json: message };
    return {
      sse: [
        { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    };
  };
}

/** Public ids of the chat and Responses families (and one of Gemini-native), all mapped to Claude here. */
const MODEL = 'beta-seed-2.0-pro';
const GEMINI_MODEL = 'gamma-2.5-flash-lite';
const OFF_MODEL = 'delta-4.1';
const NATIVE_MODEL = 'alpha-sonnet-4-5-20250929';
const tools = [
  { type: 'function' as const, function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  { type: 'function' as const, function: { name: 'run', description: 'Run a command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } } },
];
const conversation = (question: string): OpenAI.Chat.ChatCompletionMessageParam[] => [
  { role: 'system', content: LONG_SYSTEM },
  { role: 'user', content: 'Open the readme.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: '# Gateway\nA model gateway.' },
  { role: 'user', content: question },
];

describe('prompt caching on translated traffic to Anthropic (issue 33)', () => {
  let upstream: CannedUpstream;
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    upstream = await startCannedUpstream(fakeAnthropic());
    gateway = await startTestGateway({
      file: {
        channels: [
          { name: 'claude', vendor: 'anthropic', base_url: upstream.url, api_key: 'sk-ant-up', max_retries: 0, models: { [MODEL]: 'claude-sonnet-4-5-20250929', [GEMINI_MODEL]: 'claude-sonnet-4-5-20250929', [NATIVE_MODEL]: 'claude-sonnet-4-5-20250929' } },
          { name: 'claude-off', vendor: 'anthropic', base_url: upstream.url, api_key: 'sk-ant-up', max_retries: 0, prompt_cache: 'off', models: { [OFF_MODEL]: 'claude-sonnet-4-5-20250929' } },
        ],
      },
    });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.bodies.length = 0;
  });
  const sent = () => upstream.bodies.at(-1) as Record<string, unknown>;
  const marks = (body: Record<string, unknown>) => blocksOf(body).filter((block) => block.cache_control != null);

  it('chat completions: breakpoints on the last tool, the system prompt and the last user turns; the second request reads the prefix, billed at the cached price', async () => {
    const { id, key } = await createKey(gateway, {});
    const keyed = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const first = await keyed.chat.completions.create({ model: MODEL, messages: conversation('Summarise it.'), tools });
    const body = sent();
    expect((body.tools as Block[]).map((tool) => tool.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
    expect(body.system).toEqual([{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }]);
    const turns = body.messages as Array<{ role: string; content: Block[] }>;
    // The tool result and the new question merge into the last user turn: its last block is marked; the first user turn too.
    expect(turns.at(-1)!.content.at(-1)).toEqual({ type: 'text', text: 'Summarise it.', cache_control: { type: 'ephemeral' } });
    expect(turns[0]!.content).toEqual([{ type: 'text', text: 'Open the readme.', cache_control: { type: 'ephemeral' } }]);
    expect(marks(body)).toHaveLength(4);
    expect(first.usage!.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);

    // Same prefix, same last question: the whole marked prefix is read.
    const second = await keyed.chat.completions.create({ model: MODEL, messages: conversation('Summarise it.'), tools, stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of second) if (chunk.usage) usage = chunk.usage;
    const cached = usage!.prompt_tokens_details!.cached_tokens!;
    expect(cached).toBeGreaterThan(1024);
    expect(cached).toBeLessThan(usage!.prompt_tokens);

    await gateway.deps.usage.flush();
    const events = await gateway.deps.db.selectFrom('usage_events').selectAll().where('key_id', '=', id).orderBy('id').execute();
    expect(events).toHaveLength(2);
    expect(events[0]!.cached_tokens).toBe(0);
    expect(events[0]!.cache_write_5m_tokens).toBeGreaterThan(1024);
    expect(events[1]!.cached_tokens).toBe(cached);
    // Claude Sonnet 4.5: $3 input, $0.30 cache reads, $3.75 5-minute writes, $15 output.
    const uncached = events[1]!.prompt_tokens - cached;
    expect(Math.abs(events[1]!.cost_usd - (uncached * 3 + cached * 0.3 + 3 * 15) / 1e6)).toBeLessThan(1e-9);
    expect(events[1]!.cost_usd).toBeLessThan(events[0]!.cost_usd / 3);

    const list = await admin(gateway, 'GET', `/requests?key=${id}&limit=1`);
    const detail = await admin(gateway, 'GET', `/requests/${list.json.data[0].id}`);
    expect(detail.json.cached_tokens).toBe(cached);
    expect(detail.json.cost_lines).toContainEqual({ dimension: 'cached_input', quantity: cached, unit_usd: 0.3, usd: expect.closeTo(cached * 0.3e-6, 12) });
  });

  it('a growing conversation reads the previous turn: the new turn marks itself and the one before', async () => {
    await client.chat.completions.create({ model: MODEL, messages: conversation('First question about the cache test.'), tools });
    const longer: OpenAI.Chat.ChatCompletionMessageParam[] = [...conversation('First question about the cache test.'), { role: 'assistant', content: 'ok' }, { role: 'user', content: 'And a follow-up.' }];
    const answer = await client.chat.completions.create({ model: MODEL, messages: longer, tools });
    expect(marks(sent())).toHaveLength(4);
    expect(answer.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThan(1024);
  });

  it('Responses (Codex) and Gemini-native requests get the same breakpoints; a short prompt stays within 4 without tools', async () => {
    const instructions = LONG_SYSTEM;
    const input = [{ role: 'user' as const, content: 'Which files changed?' }];
    await client.responses.create({ model: MODEL, instructions, input, tools: [{ type: 'function', name: 'run', parameters: { type: 'object', properties: {} }, strict: false }] });
    const responsesBody = sent();
    expect(marks(responsesBody)).toHaveLength(3);
    expect(responsesBody.system).toEqual([{ type: 'text', text: instructions, cache_control: { type: 'ephemeral' } }]);
    const again = await client.responses.create({ model: MODEL, instructions, input, tools: [{ type: 'function', name: 'run', parameters: { type: 'object', properties: {} }, strict: false }] });
    expect(again.usage!.input_tokens_details.cached_tokens).toBeGreaterThan(1024);

    const gemini = { systemInstruction: { parts: [{ text: LONG_SYSTEM }] }, contents: [{ role: 'user', parts: [{ text: 'Explain the layout.' }] }] };
    expect((await call(gateway, 'POST', `/v1beta/models/${GEMINI_MODEL}:generateContent`, gemini, { 'x-goog-api-key': TEST_KEY })).status).toBe(200);
    expect(marks(sent())).toHaveLength(2);
    const cachedAnswer = await call(gateway, 'POST', `/v1beta/models/${GEMINI_MODEL}:generateContent`, gemini, { 'x-goog-api-key': TEST_KEY });
    expect(cachedAnswer.json.usageMetadata.cachedContentTokenCount).toBeGreaterThan(1024);
  });

  it('a client that marks its own breakpoints keeps them alone; a short prompt and a channel with prompt_cache: off get none', async () => {
    const own = await call(
      gateway,
      'POST',
      '/v1/chat/completions',
      { model: MODEL, messages: [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }] },
      bearer(TEST_KEY),
    );
    expect(own.status, own.text).toBe(200);
    expect(sent().system).toBe(LONG_SYSTEM);

    // A prompt too short for Anthropic to cache (under 1024 tokens) goes out unmarked.
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }], tools });
    expect(marks(sent())).toEqual([]);

    await client.chat.completions.create({ model: OFF_MODEL, messages: conversation('Summarise it.'), tools });
    expect(marks(sent())).toEqual([]);
    expect(sent().system).toBe(LONG_SYSTEM);
  });

  it('Anthropic-native requests pass through untouched', async () => {
    const body = { model: NATIVE_MODEL, max_tokens: 64, system: LONG_SYSTEM, messages: [{ role: 'user', content: 'hi' }] };
    const answer = await call(gateway, 'POST', '/v1/messages', body, { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
    expect(answer.status, answer.text).toBe(200);
    expect(marks(sent())).toEqual([]);
    expect(sent().system).toBe(LONG_SYSTEM);
  });
});

describe('a Codex-shaped session on the built-in Anthropic simulator (issue 33)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { channels: [{ name: 'claude-sim', vendor: 'anthropic', max_retries: 0, models: { [MODEL]: 'claude-sonnet-4-5-20250929' } }] } });
  });
  afterAll(() => gateway.stop());

  it('the simulator accepts the marks and the second turn reads the cached prefix', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const request = { model: MODEL, instructions: LONG_SYSTEM, input: 'List the modules.', tools: [{ type: 'function' as const, name: 'shell', parameters: { type: 'object', properties: {} }, strict: false }] };
    const first = await client.responses.create(request);
    expect(first.usage!.input_tokens_details?.cached_tokens ?? 0).toBe(0);
    const second = await client.responses.create({ ...request, input: 'List the modules.' });
    expect(second.usage!.input_tokens_details.cached_tokens).toBeGreaterThan(1024);
    const sent = gateway.deps.simulators.get('claude-sim')!.requests.at(-1)!.body as { system: Block[] };
    expect(sent.system.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
  });
});
