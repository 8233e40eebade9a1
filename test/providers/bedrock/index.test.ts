import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../../src/config/load.js';
import { parseSseText } from '../../../src/sse/parse.js';
import { chunkFrame, eventFrame, exceptionFrame } from '../../../src/providers/bedrock/simulator-frames.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { bearer, createKey } from '../../helpers/admin.js';
import { startFakeBedrock, type FakeAnswer, type FakeBedrock, type FakeCall } from './fake-bedrock.js';

const REGION = 'eu-west-1';
const KEYS = { accessKeyId: 'AKIAFAKEBEDROCK00001', secretAccessKey: 'fake/Secret+Access+Key/0123456789abcdefghij', sessionToken: 'FwoGZXIvYXdzEFAKE-session-token-0123456789' };
const API_KEY = 'bedrock-api-key-ZmFrZS1wcmVzaWduZWQtdXJs';

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA = 'amazon.nova-pro-v1:0';

/** Converse usage with cache reads and writes: inputTokens leave both out. */
const CONVERSE_USAGE = { inputTokens: 1_200, outputTokens: 300, totalTokens: 11_500, cacheReadInputTokens: 8_000, cacheWriteInputTokens: 2_000 };
// us. profile of Sonnet 4.5: the regional price, 1.1x of $3 / $3.75 write / $0.30 read / $15.
const SONNET_CONVERSE_COST = (1_200 * 3.3 + 2_000 * 4.125 + 8_000 * 0.33 + 300 * 16.5) / 1e6;
const CHAT_USAGE = { prompt_tokens: 11_200, completion_tokens: 300, total_tokens: 11_500, prompt_tokens_details: { cached_tokens: 8_000 } };

const CLAUDE_USAGE = { input_tokens: 40, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 20_000, output_tokens: 90 };
const SONNET_INVOKE_COST = (40 * 3.3 + 1_000 * 4.125 + 20_000 * 0.33 + 90 * 16.5) / 1e6;

const WEATHER_TOOL = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

/** What the fake answers, by operation; tests swap it. */
let next: (call: FakeCall) => FakeAnswer;

const converseText = (text: string): FakeAnswer => ({ json: { output: { message: { role: 'assistant', content: [{ text }] } }, stopReason: 'end_turn', usage: CONVERSE_USAGE, metrics: { latencyMs: 5 } } });

describe('Bedrock channels (issue 30): SigV4 and API keys against a fake that verifies them', () => {
  let fake: FakeBedrock;
  let gateway: TestGateway;
  const savedEnv: Record<string, string | undefined> = {};

  beforeAll(async () => {
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK']) {
      savedEnv[name] = process.env[name];
      delete process.env[name];
    }
    fake = await startFakeBedrock({ ...KEYS, apiKey: API_KEY, region: REGION }, (c) => next(c));
    const base = { vendor: 'bedrock', base_url: fake.url, region: REGION, max_retries: 0 };
    gateway = await startTestGateway({
      file: {
        models: ['sonnet-on-bedrock', 'nova-on-bedrock', 'nova-by-key', 'nova-wrong-secret', 'nova-no-token', 'nova-no-credentials'].map((id) => ({ id, kind: 'chat' as const })),
        channels: [
          { ...base, name: 'bedrock-sigv4', aws_access_key_id: KEYS.accessKeyId, aws_secret_access_key: KEYS.secretAccessKey, aws_session_token: KEYS.sessionToken, models: { 'sonnet-on-bedrock': SONNET, 'nova-on-bedrock': NOVA } },
          { ...base, name: 'bedrock-api-key', api_key: API_KEY, models: { 'nova-by-key': NOVA } },
          { ...base, name: 'bedrock-wrong-secret', aws_access_key_id: KEYS.accessKeyId, aws_secret_access_key: 'not-the-secret-0123456789', aws_session_token: KEYS.sessionToken, models: { 'nova-wrong-secret': NOVA } },
          { ...base, name: 'bedrock-no-token', aws_access_key_id: KEYS.accessKeyId, aws_secret_access_key: KEYS.secretAccessKey, models: { 'nova-no-token': NOVA } },
          { ...base, name: 'bedrock-no-credentials', models: { 'nova-no-credentials': NOVA } },
        ],
      },
    });
  });

  afterAll(async () => {
    await gateway.stop();
    await fake.close();
    for (const [name, value] of Object.entries(savedEnv)) if (value !== undefined) process.env[name] = value;
  });

  const openai = (key = TEST_KEY) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const events = async (keyId: string) => {
    await gateway.deps.usage.flush();
    return gateway.deps.db.selectFrom('usage_events').selectAll().where('key_id', '=', keyId).orderBy('id').execute();
  };

  it('chat completions go to Converse, signed with the session token; usage and cost are exact', async () => {
    next = () => converseText('Hello from Bedrock');
    const { id, key } = await createKey(gateway, {});
    const completion = await openai(key).chat.completions.create({
      model: 'sonnet-on-bedrock',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }],
      max_tokens: 64,
      temperature: 0.5,
      stop: ['END'],
    });
    expect(completion.choices[0]!.message.content).toBe('Hello from Bedrock');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toEqual(CHAT_USAGE);
    const sent = fake.calls.at(-1)!;
    expect(sent.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
    expect(sent.body).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }], system: [{ text: 'Be brief.' }], inferenceConfig: { maxTokens: 64, temperature: 0.5, stopSequences: ['END'] } });
    expect(sent.headers['x-amz-security-token']).toBe(KEYS.sessionToken);
    const [event] = await events(id);
    expect(Math.abs(event!.cost_usd - SONNET_CONVERSE_COST)).toBeLessThan(1e-9);
    expect(event).toMatchObject({ prompt_tokens: 11_200, completion_tokens: 300, cached_tokens: 8_000, cache_write_5m_tokens: 2_000, channel: 'bedrock-sigv4' });
  });

  it('ConverseStream: binary frames split across reads become chat chunks with tool calls and the usage chunk', async () => {
    next = () => ({
      writeSize: 7,
      frames: [
        eventFrame('messageStart', { role: 'assistant', p: 'abcdefgh' }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Thinking about weather.' } } }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig-abc' } } }),
        eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Let me check.' } }),
        eventFrame('contentBlockStop', { contentBlockIndex: 1 }),
        eventFrame('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '"Paris"}' } } }),
        eventFrame('contentBlockStop', { contentBlockIndex: 2 }),
        eventFrame('messageStop', { stopReason: 'tool_use' }),
        eventFrame('metadata', { usage: CONVERSE_USAGE, metrics: { latencyMs: 9 } }),
      ],
    });
    const { id, key } = await createKey(gateway, {});
    const stream = await openai(key).chat.completions.create({
      model: 'sonnet-on-bedrock',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let reasoning = '';
    let args = '';
    let toolName = '';
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as (Record<string, any> & { tool_calls?: any[] }) | undefined;
      text += delta?.content ?? '';
      reasoning += delta?.reasoning_content ?? '';
      for (const call of delta?.tool_calls ?? []) {
        toolName ||= call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect({ text, reasoning, toolName, args: JSON.parse(args), finish }).toEqual({ text: 'Let me check.', reasoning: 'Thinking about weather.', toolName: 'get_weather', args: { city: 'Paris' }, finish: 'tool_calls' });
    expect(usage).toEqual(CHAT_USAGE);
    const sent = fake.calls.at(-1)!;
    expect(sent.operation).toBe('converse-stream');
    expect(sent.body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', description: 'Weather of a city', inputSchema: { json: WEATHER_TOOL.function.parameters } } }], toolChoice: { any: {} } });
    const [event] = await events(id);
    expect(Math.abs(event!.cost_usd - SONNET_CONVERSE_COST)).toBeLessThan(1e-9);
  });

  it('a tool loop sends toolUse and toolResult blocks; images go as bytes; a URL image is a 400', async () => {
    next = () => converseText('It is sunny.');
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const completion = await openai().chat.completions.create({
      model: 'nova-on-bedrock',
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather here?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'tooluse_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'tooluse_1', content: 'sunny, 21C' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('It is sunny.');
    expect(fake.calls.at(-1)!.body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather here?' }, { image: { format: 'png', source: { bytes: png } } }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'sunny, 21C' }] } }] },
    ]);
    const refused = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-on-bedrock', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toContain('base64 data URL');
  });

  it('a Bedrock API key goes as a bearer token, no signature', async () => {
    next = () => converseText('keyed');
    const completion = await openai().chat.completions.create({ model: 'nova-by-key', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('keyed');
    const sent = fake.calls.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers['x-amz-date']).toBeUndefined();
  });

  it('a wrong secret or a missing session token is refused by the fake; the client gets 502 without any secret', async () => {
    for (const model of ['nova-wrong-secret', 'nova-no-token']) {
      const before = fake.calls.length;
      const answer = await call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }] });
      expect(answer.status, answer.text).toBe(502);
      expect(answer.json.error.code).toBe('upstream_auth_failed');
      expect(fake.calls.length).toBe(before);
      for (const secret of [KEYS.secretAccessKey, KEYS.sessionToken, KEYS.accessKeyId, 'not-the-secret-0123456789']) expect(answer.text).not.toContain(secret);
    }
  });

  it('a channel with no credentials anywhere is a clear 502 in the client envelope, not a 500', async () => {
    const answer = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-no-credentials', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.status, answer.text).toBe(502);
    expect(answer.json.error.message).toContain('no AWS credentials');
  });

  it('a channel without credentials of its own signs with the AWS environment (session token included), read per request', async () => {
    next = () => converseText('from the environment');
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey, AWS_SESSION_TOKEN: KEYS.sessionToken });
    try {
      const completion = await openai().chat.completions.create({ model: 'nova-no-credentials', messages: [{ role: 'user', content: 'Hi' }] });
      expect(completion.choices[0]!.message.content).toBe('from the environment');
      expect(fake.calls.at(-1)!.headers['x-amz-security-token']).toBe(KEYS.sessionToken);
      // A rotated token that the fake does not know is refused: the environment is read again.
      process.env.AWS_SESSION_TOKEN = 'rotated-but-wrong';
      const refused = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-no-credentials', messages: [{ role: 'user', content: 'Hi' }] });
      expect(refused.status).toBe(502);
    } finally {
      for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) delete process.env[name];
    }
  });

  it('exceptions: ValidationException is a 400 with its message, ThrottlingException a 429, AccessDenied ours (502)', async () => {
    next = () => ({ json: { message: 'The provided model identifier is invalid.' }, status: 400, exception: 'ValidationException' });
    const invalid = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-on-bedrock', messages: [{ role: 'user', content: 'Hi' }] });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.message).toBe('The provided model identifier is invalid.');
    // An upstream message that quotes the channel's own secrets is redacted by value before the client sees it.
    next = () => ({ json: { message: `Invalid input near ${KEYS.secretAccessKey} and ${KEYS.sessionToken}` }, status: 400, exception: 'ValidationException' });
    const quoting = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-on-bedrock', messages: [{ role: 'user', content: 'Hi' }] });
    expect(quoting.status).toBe(400);
    expect(quoting.json.error.message).toContain('Invalid input near');
    for (const secret of [KEYS.secretAccessKey, KEYS.sessionToken]) expect(quoting.text).not.toContain(secret);
    next = () => ({ json: { message: 'Too many requests, please wait before trying again.' }, status: 429, exception: 'ThrottlingException' });
    expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-on-bedrock', messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(429);
    next = () => ({ json: { message: `User: arn:aws:iam::123456789012:user/x is not authorized (${KEYS.accessKeyId})` }, status: 403, exception: 'AccessDeniedException' });
    const denied = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-on-bedrock', messages: [{ role: 'user', content: 'Hi' }] });
    expect(denied.status).toBe(502);
    expect(denied.text).not.toContain(KEYS.accessKeyId);
  });

  it('a stream exception event after the first output ends the stream with an error event; a corrupt frame too', async () => {
    next = () => ({ frames: [eventFrame('messageStart', { role: 'assistant' }), eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hal' } }), exceptionFrame('throttlingException', 'Too many tokens')] });
    const failed = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-on-bedrock', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    const events = await parseSseText(failed.text);
    expect(events.some((e) => e.data.includes('"Hal"'))).toBe(true);
    const last = JSON.parse(events.at(-1)!.data);
    expect(last.error.code).toBe('upstream_rate_limited');

    const good = eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x' } });
    const corrupt = Buffer.from(good);
    corrupt[corrupt.length - 6]! ^= 0x01;
    next = () => ({ frames: [eventFrame('messageStart', { role: 'assistant' }), good, corrupt] });
    const broken = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-on-bedrock', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    // The events before the corrupt frame reach the client (as they would had it come in a later read); then the error.
    const brokenEvents = await parseSseText(broken.text);
    expect(brokenEvents.some((e) => e.data.includes('"x"'))).toBe(true);
    expect(JSON.parse(brokenEvents.at(-1)!.data).error.code).toBe('upstream_bad_response');
  });

  it('Anthropic-native /v1/messages on Claude uses InvokeModel with the client body intact (cache_control, signed thinking, betas)', async () => {
    const message = { id: 'msg_bdrk_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn', stop_sequence: null, usage: CLAUDE_USAGE };
    next = () => ({ json: message });
    const { id, key } = await createKey(gateway, {});
    const body = {
      model: 'sonnet-on-bedrock',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Think, then answer.' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'Let me see…', signature: 'EqQBCkYIBBgCKkD+/sig==' }, { type: 'text', text: 'Ok.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Go on.', cache_control: { type: 'ephemeral', ttl: '5m' } }] },
      ],
    };
    const answer = await call(gateway, 'POST', '/v1/messages', body, { ...bearer(key), 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ type: 'message', model: 'sonnet-on-bedrock', content: [{ type: 'text', text: 'Done.' }], usage: CLAUDE_USAGE });
    const sent = fake.calls.at(-1)!;
    expect(sent.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    const { model: _model, ...rest } = body;
    expect(sent.body).toEqual({ ...rest, anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'] });
    const [event] = await events(id);
    expect(Math.abs(event!.cost_usd - SONNET_INVOKE_COST)).toBeLessThan(1e-9);
  });

  it('Anthropic SDK streaming on Claude: InvokeModelWithResponseStream chunks become Anthropic events with exact usage', async () => {
    const start = { id: 'msg_bdrk_2', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { ...CLAUDE_USAGE, output_tokens: 1 } };
    next = () => ({
      writeSize: 11,
      frames: [
        chunkFrame({ type: 'message_start', message: start }),
        chunkFrame({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
        chunkFrame({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } }),
        chunkFrame({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBsig+/==' } }),
        chunkFrame({ type: 'content_block_stop', index: 0 }),
        chunkFrame({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
        chunkFrame({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Streamed.' } }),
        chunkFrame({ type: 'content_block_stop', index: 1 }),
        chunkFrame({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 90 } }),
        chunkFrame({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 40, outputTokenCount: 90, invocationLatency: 10, firstByteLatency: 5 } }),
      ],
    });
    const { id, key } = await createKey(gateway, {});
    const client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'sonnet-on-bedrock', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Hi' }] });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([
      { type: 'thinking', thinking: 'Hmm.', signature: 'EqQBsig+/==' },
      { type: 'text', text: 'Streamed.', citations: null },
    ].map((block) => (block.type === 'text' ? expect.objectContaining({ type: 'text', text: 'Streamed.' }) : block)));
    expect(final.usage).toMatchObject(CLAUDE_USAGE);
    const sent = fake.calls.at(-1)!;
    expect(sent.operation).toBe('invoke-with-response-stream');
    expect(sent.body.stream).toBeUndefined();
    expect(sent.body.model).toBeUndefined();
    const [event] = await events(id);
    expect(Math.abs(event!.cost_usd - SONNET_INVOKE_COST)).toBeLessThan(1e-9);
  });

  it('Anthropic-native clients on a non-Claude model are served through Converse', async () => {
    next = () => converseText('Nova here');
    const answer = await call(gateway, 'POST', '/v1/messages', { model: 'nova-on-bedrock', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }, { ...bearer(TEST_KEY), 'anthropic-version': '2023-06-01' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.content).toEqual([{ type: 'text', text: 'Nova here' }]);
    expect(fake.calls.at(-1)!.operation).toBe('converse');
  });

  it('/v1/responses streams through the chat hub onto ConverseStream', async () => {
    next = () => ({
      frames: [
        eventFrame('messageStart', { role: 'assistant' }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Via ' } }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'responses.' } }),
        eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
        eventFrame('messageStop', { stopReason: 'end_turn' }),
        eventFrame('metadata', { usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } }),
      ],
    });
    const stream = await openai().responses.create({ model: 'nova-on-bedrock', input: 'Hi', stream: true });
    let text = '';
    let usage: unknown;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') usage = event.response.usage;
    }
    expect(text).toBe('Via responses.');
    expect(usage).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 });
    expect(fake.calls.at(-1)!.operation).toBe('converse-stream');
  });
});

describe('docs/bedrock.md', () => {
  it("its channel is a valid configuration", () => {
    const docs = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'bedrock.md'), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(docs)![1]!;
    const path = join(mkdtempSync(join(tmpdir(), 'bedrock-docs-')), 'gateway.yaml');
    writeFileSync(path, yaml);
    const file = loadConfigFile(path, { AWS_ACCESS_KEY_ID: 'AKIADOCS', AWS_SECRET_ACCESS_KEY: 'docs-secret' });
    expect(file.channels![0]).toMatchObject({ vendor: 'bedrock', region: 'us-east-1', aws_access_key_id: 'AKIADOCS', aws_secret_access_key: 'docs-secret', models: { 'claude-sonnet-4-5': 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' } });
  });
});
