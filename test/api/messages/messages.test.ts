import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/server.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { postStream } from './sse.js';

const MODEL = 'alpha-sonnet-4-5-20250929';

interface Chunk {
  id: string;
  object: string;
  model: string;
  choices: Array<{ index: number; delta: { role?: string; content?: string }; finish_reason: string | null }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

describe('POST /v1/messages through the Anthropic simulator (spec §2)', () => {
  let gateway: TestGateway;
  let upstream: RunningSimulator;
  beforeAll(async () => {
    gateway = await startTestGateway();
    upstream = gateway.deps.simulators.get('simulator-anthropic')!;
  });
  afterEach(() => upstream.setOptions({}));
  afterAll(() => gateway.stop());

  const lastUpstream = () => upstream.requests[upstream.requests.length - 1]!;

  it('answers a chat.completion with the upstream text, finish_reason and real usage', async () => {
    const res = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-simulator')).toBe('anthropic');
    const body = res.json;
    expect(body).toMatchObject({ object: 'chat.completion', model: MODEL, created: expect.any(Number), id: expect.stringMatching(/^msg_/) });
    expect(body.choices).toHaveLength(1);
    expect(body.choices[0].message.role).toBe('assistant');
    expect(body.choices[0].message.content).toContain('simulated reply from claude-sonnet-4-5-20250929. You said: "Hello there"');
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeGreaterThan(5);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('sends the spec defaults, the hoisted system prompt, stop_sequences and Anthropic headers upstream', async () => {
    const res = await call(
      gateway,
      'POST',
      '/v1/messages',
      { model: 'alpha-opus-4-20250514', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], stop: 'zzz' },
      { authorization: `Bearer ${TEST_KEY}` },
    );
    expect(res.status).toBe(200);
    expect(res.json.model).toBe('alpha-opus-4-20250514');
    const sent = lastUpstream();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('simulator-key');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(TEST_KEY);
    expect(sent.body).toEqual({
      model: 'claude-opus-4-20250514',
      max_tokens: 8192,
      temperature: 1,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
      stop_sequences: ['zzz'],
    });
  });

  it('never forwards the client key, also when the client authenticates with x-api-key', async () => {
    const res = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-api-key': TEST_KEY });
    expect(res.status).toBe(200);
    expect(lastUpstream().headers['x-api-key']).toBe('simulator-key');
    expect(JSON.stringify(lastUpstream().headers)).not.toContain(TEST_KEY);
  });

  it('passes the client values instead of the defaults, and drops the penalties Anthropic lacks', async () => {
    const res = await call(gateway, 'POST', '/v1/messages', {
      model: MODEL,
      messages: [{ role: 'user', content: 'One' }, { role: 'user', content: 'Two' }, { role: 'assistant', content: 'Ok' }, { role: 'user', content: 'Three' }],
      max_tokens: 100,
      temperature: 0.3,
      top_p: 0.9,
      frequency_penalty: 1.5,
      presence_penalty: -1,
      stop: ['a', 'b'],
    });
    expect(res.status).toBe(200);
    expect(lastUpstream().body).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 100,
      temperature: 0.3,
      top_p: 0.9,
      stop_sequences: ['a', 'b'],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }] },
        { role: 'assistant', content: 'Ok' },
        { role: 'user', content: 'Three' },
      ],
    });
  });

  it('maps a stop sequence to finish_reason stop and max_tokens to length', async () => {
    const stopped = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], stop: ['simulated'] });
    expect(stopped.json.choices[0]).toMatchObject({ message: { content: 'This is a ' }, finish_reason: 'stop' });
    const cut = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3 });
    expect(cut.json.choices[0].finish_reason).toBe('length');
    expect(cut.json.usage.completion_tokens).toBe(3);
  });

  it('streams chat.completion.chunk events ending in [DONE], without a usage chunk by default', async () => {
    const request = { model: MODEL, messages: [{ role: 'user', content: 'Stream this please' }] };
    const whole = await call(gateway, 'POST', '/v1/messages', request);
    const stream = await postStream(gateway, '/v1/messages', { ...request, stream: true });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(stream.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(stream.events.at(-1)).toBe('[DONE]');
    const chunks = stream.events.slice(0, -1) as Chunk[];
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0]!.id).toMatch(/^msg_/);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: MODEL, id: chunks[0]!.id });
      expect(chunk).not.toHaveProperty('usage');
    }
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(whole.json.choices[0].message.content);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
    expect(lastUpstream().body).toMatchObject({ stream: true });
  });

  it('adds usage: null to each chunk and a final usage chunk when stream_options.include_usage is true', async () => {
    const request = { model: MODEL, messages: [{ role: 'user', content: 'Count me' }] };
    const whole = await call(gateway, 'POST', '/v1/messages', request);
    const stream = await postStream(gateway, '/v1/messages', { ...request, stream: true, stream_options: { include_usage: true } });
    const chunks = stream.events.slice(0, -1) as Chunk[];
    expect(stream.events.at(-1)).toBe('[DONE]');
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual(whole.json.usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(lastUpstream().body).not.toHaveProperty('stream_options');
  });

  it('works with the official OpenAI SDK (generic post, JSON and SSE)', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.post<{ object: string; choices: Array<{ message: { content: string } }> }>('/messages', {
      body: { model: MODEL, messages: [{ role: 'user', content: 'SDK says hi' }] },
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toContain('SDK says hi');

    const stream = await client.post<AsyncIterable<Chunk>>('/messages', {
      body: { model: MODEL, messages: [{ role: 'user', content: 'SDK says hi' }], stream: true, stream_options: { include_usage: true } },
      stream: true,
    });
    let text = '';
    let usage: Chunk['usage'];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(completion.choices[0]!.message.content);
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  it('rejects a request without a key with 401 in the chat envelope', async () => {
    const res = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'x' }] }, {});
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String) } });
  });
});

describe('per-channel Anthropic API version and beta flags (issue 14)', () => {
  it("a channel's headers replace anthropic-version and add anthropic-beta, whatever their case", async () => {
    const gateway = await startTestGateway({
      file: {
        channels: [
          {
            name: 'anthropic-pinned',
            vendor: 'anthropic',
            models: { [MODEL]: 'claude-sonnet-4-5' },
            headers: { 'Anthropic-Version': '2023-01-01', 'anthropic-beta': 'output-128k-2025-02-19' },
          },
        ],
      },
    });
    try {
      const res = await call(gateway, 'POST', '/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'x' }] });
      expect(res.status).toBe(200);
      const sent = gateway.deps.simulators.get('anthropic-pinned')!.requests.at(-1)!;
      expect(sent.headers['anthropic-version']).toBe('2023-01-01');
      expect(sent.headers['anthropic-beta']).toBe('output-128k-2025-02-19');
      expect(sent.headers['x-api-key']).toBe('simulator-key');
    } finally {
      await gateway.stop();
    }
  });
});
