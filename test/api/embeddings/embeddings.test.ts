import OpenAI from 'openai';
import { OpenAIEmbeddings } from '@langchain/openai';
import { embed, embedMany } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { admin, createKey } from '../../helpers/admin.js';
import { startCannedUpstream, type CannedUpstream } from '../../helpers/canned-upstream.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/**
 * Issue 29: /v1/embeddings through the real gateway to a fake OpenAI-compatible upstream whose
 * vectors the test knows bit for bit; the official clients read them back unchanged.
 */
const DIMENSIONS = 8;
const TOKENS_PER_INPUT = 7;

/** A float32-exact vector per text, with bits a decimal round trip would change. */
function vectorOf(text: string): number[] {
  return Array.from({ length: DIMENSIONS }, (_, i) => Math.fround(Math.sin(text.length * 31 + i * 7 + text.charCodeAt(0)) / 3));
}

const toBase64 = (values: readonly number[]) => Buffer.from(new Float32Array(values).buffer).toString('base64');
const bitsOf = (values: ArrayLike<number>) => Array.from(new Uint32Array(new Float32Array(Array.from(values)).buffer));

/** What the fake answers: base64 when asked, except the `floats-only` model, which ignores it (as some servers do). */
function fakeEmbeddings(body: Record<string, unknown>) {
  const input = body.input as string | string[];
  const texts = typeof input === 'string' ? [input] : input;
  if (body.model === 'limited-96' && texts.length > 96) return { status: 400, json: { error: { message: 'at most 96 inputs', type: 'invalid_request_error' } } };
  const asBase64 = body.encoding_format === 'base64' && body.model !== 'floats-only';
  const data = texts.map((text, index) => ({ object: 'embedding', index, embedding: asBase64 ? toBase64(vectorOf(text)) : vectorOf(text) }));
  // Out of order on purpose: the index decides where a vector goes.
  if (body.model === 'limited-96') data.reverse();
  const tokens = texts.length * TOKENS_PER_INPUT;
  // A field of the upstream's own: kept only when the answer is relayed as text, untouched.
  return { json: { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens }, upstream_marker: 'as-sent' } };
}

describe('POST /v1/embeddings (issue 29)', () => {
  let upstream: CannedUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startCannedUpstream((_path, body) => fakeEmbeddings(body));
    gateway = await startTestGateway({
      file: {
        models: [{ id: 'house-embed', kind: 'embedding' }],
        channels: [
          { name: 'fake-openai', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-key', models: { 'text-embedding-3-small': 'text-embedding-3-small', 'text-embedding-3-large': 'floats-only' } },
          { name: 'fake-limited', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-key', max_inputs_per_call: 96, models: { 'house-embed': 'limited-96' } },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.close();
  });

  const client = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1` });

  it('the openai SDK default (base64) gets the upstream base64 untouched, vectors exact to the bit', async () => {
    const texts = ['the cat sat', 'a dog ran far'];
    const answer = await client().embeddings.create({ model: 'text-embedding-3-small', input: texts });
    expect((upstream.bodies.at(-1) as { encoding_format?: string }).encoding_format).toBe('base64');
    expect(answer.model).toBe('text-embedding-3-small');
    expect(answer.data.map((d) => d.index)).toEqual([0, 1]);
    answer.data.forEach((item, i) => expect(bitsOf(item.embedding)).toEqual(bitsOf(vectorOf(texts[i]!))));
    expect(answer.usage).toEqual({ prompt_tokens: 14, total_tokens: 14 });
  });

  it('relays an answer already in the client encoding as text (base64 and float), only the model renamed', async () => {
    for (const encoding_format of ['base64', 'float'] as const) {
      const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format });
      expect(response.json.upstream_marker, encoding_format).toBe('as-sent');
      expect(response.json.model).toBe('text-embedding-3-small');
    }
    // Converted answers are rebuilt: the floats-only server's own fields do not survive.
    const converted = await call(gateway, 'POST', '/v1/embeddings', { model: 'text-embedding-3-large', input: ['a'], encoding_format: 'base64' });
    expect(converted.json.upstream_marker).toBeUndefined();
    expect(converted.json.model).toBe('text-embedding-3-large');
  });

  it('explicit float passes floats; a server that ignores base64 is re-encoded for the SDK', async () => {
    const floats = await client().embeddings.create({ model: 'text-embedding-3-small', input: 'one text', encoding_format: 'float' });
    expect(bitsOf(floats.data[0]!.embedding)).toEqual(bitsOf(vectorOf('one text')));
    const converted = await client().embeddings.create({ model: 'text-embedding-3-large', input: ['x y', 'zz'] });
    expect((upstream.bodies.at(-1) as { model: string }).model).toBe('floats-only');
    expect(converted.data.map((d) => bitsOf(d.embedding))).toEqual([bitsOf(vectorOf('x y')), bitsOf(vectorOf('zz'))]);
  });

  it('LangChain OpenAIEmbeddings and the Vercel AI SDK embed / embedMany read the same vectors', async () => {
    const langchain = new OpenAIEmbeddings({ model: 'text-embedding-3-small', apiKey: TEST_KEY, configuration: { baseURL: `${gateway.url}/v1` } });
    const documents = await langchain.embedDocuments(['alpha', 'beta gamma']);
    expect(documents.map(bitsOf)).toEqual([bitsOf(vectorOf('alpha')), bitsOf(vectorOf('beta gamma'))]);
    expect(bitsOf(await langchain.embedQuery('query text'))).toEqual(bitsOf(vectorOf('query text')));
    const provider = createOpenAICompatible({ name: 'gateway', baseURL: `${gateway.url}/v1`, apiKey: TEST_KEY });
    const model = provider.textEmbeddingModel('text-embedding-3-small');
    const one = await embed({ model, value: 'sunny day' });
    expect(bitsOf(one.embedding)).toEqual(bitsOf(vectorOf('sunny day')));
    const many = await embedMany({ model, values: ['a b', 'c d e'] });
    expect(many.embeddings.map(bitsOf)).toEqual([bitsOf(vectorOf('a b')), bitsOf(vectorOf('c d e'))]);
  });

  it('splits 2,048 inputs across a channel limited to 96 a call and answers in input order', async () => {
    const texts = Array.from({ length: 2048 }, (_, i) => `text number ${i} ${'x'.repeat(i % 13)}`);
    const before = upstream.bodies.length;
    const answer = await client().embeddings.create({ model: 'house-embed', input: texts });
    const calls = upstream.bodies.slice(before) as Array<{ input: string[] }>;
    expect(calls).toHaveLength(Math.ceil(2048 / 96));
    expect(Math.max(...calls.map((c) => c.input.length))).toBe(96);
    expect(answer.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    answer.data.forEach((item, i) => expect(bitsOf(item.embedding)).toEqual(bitsOf(vectorOf(texts[i]!))));
    expect(answer.usage.prompt_tokens).toBe(2048 * TOKENS_PER_INPUT);
  });

  it('bills the reported tokens at the sheet price to the nano-dollar', async () => {
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'text-embedding-3-small', input: ['one', 'two', 'three'] });
    expect(response.status).toBe(200);
    await gateway.deps.usage.flush();
    const event = await gateway.deps.db.selectFrom('usage_events').selectAll().where('family', '=', 'embeddings').orderBy('id', 'desc').executeTakeFirstOrThrow();
    // 21 tokens at $0.02 per 1M.
    expect(event).toMatchObject({ model: 'text-embedding-3-small', prompt_tokens: 21, completion_tokens: 0, cost_usd: 0.00000042 });
  });

  it('refuses a key without the embeddings family with 403', async () => {
    const { key } = await createKey(gateway, { name: 'chat only', endpoints: ['chat-completions'] });
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'text-embedding-3-small', input: 'hi' }, { authorization: `Bearer ${key}` });
    expect(response.status).toBe(403);
    assertEnvelope('openai', response.json);
  });

  it.each([
    ['an empty input', { input: [] }, 'input'],
    ['an empty string', { input: '' }, 'input'],
    ['an empty string in a list', { input: ['a', ''] }, 'input[1]'],
    ['more than 2,048 inputs', { input: Array.from({ length: 2049 }, () => 'a') }, 'input'],
    ['an input over the token limit', { input: ['ok', 'word '.repeat(9000)] }, 'input[1]'],
    ['dimensions on a model that cannot shorten', { model: 'text-embedding-ada-002', dimensions: 256 }, 'dimensions'],
    ['a chat model', { model: 'delta-4.1' }, 'model'],
    ['an unknown encoding', { encoding_format: 'int8' }, 'encoding_format'],
  ])('answers %s with 400 naming the parameter', async (_case, fields, param) => {
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'text-embedding-3-small', input: 'hello', ...fields });
    expect(response.status).toBe(400);
    assertEnvelope('openai', response.json);
    expect(response.json.error.param).toBe(param);
  });
});

/**
 * Issue 29, item 7: an answer of 2,048 vectors arrives in many socket reads and is sent on in them
 * (JsonChunks), never joined: its length is still exact, body logging still keeps its summary,
 * and the response cache still stores and replays it.
 */
describe('a large embeddings answer relayed in its chunks', () => {
  let upstream: CannedUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await startCannedUpstream((_path, body) => fakeEmbeddings(body));
    gateway = await startTestGateway({
      file: {
        request_log: { bodies: true },
        cache: { models: { 'text-embedding-3-small': { enabled: true } } },
        channels: [{ name: 'fake-openai', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'upstream-key', models: { 'text-embedding-3-small': 'upstream-embed-model-v2' } }],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.close();
  });

  it('keeps its length, the log summary and the cache', async () => {
    const texts = Array.from({ length: 2048 }, (_, i) => `document number ${i} about topic ${i % 17}`);
    const body = { model: 'text-embedding-3-small', input: texts, encoding_format: 'base64' };
    const first = await call(gateway, 'POST', '/v1/embeddings', body);
    expect(first.status).toBe(200);
    expect(Number(first.headers.get('content-length'))).toBe(Buffer.byteLength(first.text));
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.json.model).toBe('text-embedding-3-small');
    expect(first.json.upstream_marker).toBe('as-sent');
    // One string per vector (its bits), so a mismatch is one cheap comparison to report.
    const decode = (data: Array<{ embedding: string }>) => data.map((d) => bitsOf(new Float32Array(Uint8Array.from(Buffer.from(d.embedding, 'base64')).buffer)).join(','));
    expect(decode(first.json.data)).toEqual(texts.map((text) => bitsOf(vectorOf(text)).join(',')));
    await gateway.deps.usage.flush();
    const entry = (await admin(gateway, 'GET', '/requests?limit=1')).json.data[0];
    const detail = (await admin(gateway, 'GET', `/requests/${entry.id}`)).json;
    expect(JSON.parse(detail.response_body)).toEqual({ summary: `2048 embeddings × ${DIMENSIONS} dimensions` });
    const again = await call(gateway, 'POST', '/v1/embeddings', body);
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(decode(again.json.data)).toEqual(decode(first.json.data));
    expect(upstream.bodies).toHaveLength(1);
  });
});
