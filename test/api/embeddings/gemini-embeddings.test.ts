import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { createKey } from '../../helpers/admin.js';
import { bitsOf, float32VectorOf, startFakeVendor, type FakeCall, type FakeVendor } from '../../helpers/fake-vendor.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { countTokens } from '../../../src/tokens/tokenizer.js';

/**
 * Issue 29: the Gemini-native embedding surface (`:embedContent`, `:batchEmbedContents`) for
 * `@google/genai`, and Gemini as an embeddings upstream (one content per input, batches of 100,
 * the vector count checked, base64 encoded by the gateway).
 */
const GEMINI_KEY = 'gemini-upstream-key';
const FAKE_DIMENSIONS = 16;
const googleError = (code: number, message: string, status: string) => ({ status: code, json: { error: { code, message, status } } });

/** Gemini's documented batchEmbedContents contract, enforced (protocols/embeddings.md §2). */
function fakeGemini(call: FakeCall) {
  if (call.headers['x-goog-api-key'] !== GEMINI_KEY) return googleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT');
  const match = /^\/v1beta\/models\/([^/:]+):batchEmbedContents$/.exec(call.path);
  if (call.method !== 'POST' || !match) return googleError(404, `${call.path} not found`, 'NOT_FOUND');
  const requests = call.body.requests as Array<{ model?: string; content?: { parts?: Array<{ text?: string }> }; outputDimensionality?: number }>;
  if (!Array.isArray(requests) || requests.length === 0) return googleError(400, '* BatchEmbedContentsRequest.requests: must not be empty', 'INVALID_ARGUMENT');
  if (requests.length > 100) return googleError(400, 'BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch', 'INVALID_ARGUMENT');
  for (const request of requests) {
    if (request.model !== `models/${match[1]}`) return googleError(400, `Model ${request.model} differs from the model in the path`, 'INVALID_ARGUMENT');
    if (request.content?.parts?.length !== 1 || typeof request.content.parts[0]!.text !== 'string') return googleError(400, 'one text part per content expected by this fake', 'INVALID_ARGUMENT');
  }
  const embeddings = requests.map((r) => ({ values: float32VectorOf(r.content!.parts![0]!.text!, r.outputDimensionality ?? FAKE_DIMENSIONS) }));
  // A broken upstream that loses a vector: the gateway must not shift the rest.
  if (match[1] === 'short-gemini') embeddings.pop();
  return { json: { embeddings } };
}

describe('Gemini embeddings: native surface and upstream (issue 29)', () => {
  let fake: FakeVendor;
  let gateway: TestGateway;
  let simulated: TestGateway;

  beforeAll(async () => {
    fake = await startFakeVendor(fakeGemini);
    gateway = await startTestGateway({
      file: {
        models: [{ id: 'house-short', kind: 'embedding' }],
        channels: [{ name: 'fake-gemini', vendor: 'gemini', base_url: fake.url, api_key: GEMINI_KEY, models: { 'gemini-embedding-001': 'gemini-embedding-001', 'house-short': 'short-gemini' } }],
      },
    });
    simulated = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.stop();
    await simulated.stop();
    await fake.close();
  });

  const genai = (target: TestGateway, apiKey = TEST_KEY) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: target.url } });
  const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1` });

  it('@google/genai embedContent with several contents: one batch, one content per text, task type, titles and dimensions passed on', async () => {
    const texts = ['the cat sat on the mat', 'dogs bark at night', 'a third document'];
    const before = fake.calls.length;
    const answer = await genai(gateway).models.embedContent({
      model: 'gemini-embedding-001',
      contents: texts,
      config: { taskType: 'RETRIEVAL_DOCUMENT', title: 'Pets', outputDimensionality: 8 },
    });
    expect(answer.embeddings).toHaveLength(3);
    answer.embeddings!.forEach((embedding, i) => expect(bitsOf(embedding.values!)).toEqual(bitsOf(float32VectorOf(texts[i]!, 8))));
    const sent = fake.calls.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.requests).toEqual(
      texts.map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'Pets', outputDimensionality: 8 })),
    );
  });

  it('answers the single embedContent method too, with the API key in the query or the header', async () => {
    const body = { content: { parts: [{ text: 'hello' }, { text: 'world' }] } };
    for (const [path, headers] of [
      [`/v1beta/models/gemini-embedding-001:embedContent?key=${TEST_KEY}`, {}],
      ['/v1/models/gemini-embedding-001:embedContent', { 'x-goog-api-key': TEST_KEY }],
    ] as const) {
      const response = await call(gateway, 'POST', path, body, headers);
      expect(response.status, response.text).toBe(200);
      // The parts of one content are one text: one vector.
      expect(bitsOf(response.json.embedding.values)).toEqual(bitsOf(float32VectorOf('hello\nworld', FAKE_DIMENSIONS)));
    }
  });

  it('the openai SDK (base64 by default) over a Gemini channel: 250 inputs in batches of 100, in order, encoded by the gateway', async () => {
    const texts = Array.from({ length: 250 }, (_, i) => `passage ${i} about ${'topic '.repeat(i % 5)}`.trim());
    const before = fake.calls.length;
    const answer = await openai().embeddings.create({ model: 'gemini-embedding-001', input: texts, dimensions: 12, input_type: 'query' } as OpenAI.EmbeddingCreateParams);
    const sent = fake.calls.slice(before);
    expect(sent.map((c) => (c.body.requests as unknown[]).length).sort()).toEqual([100, 100, 50]);
    const first = (sent[0]!.body.requests as Array<Record<string, unknown>>)[0]!;
    expect(first).toMatchObject({ taskType: 'RETRIEVAL_QUERY', outputDimensionality: 12 });
    expect(answer.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    answer.data.forEach((item, i) => expect(bitsOf(item.embedding)).toEqual(bitsOf(float32VectorOf(texts[i]!, 12))));
    // Explicit float gets the same numbers as JSON.
    const floats = await openai().embeddings.create({ model: 'gemini-embedding-001', input: ['x y z'], encoding_format: 'float' });
    expect(floats.data[0]!.embedding).toEqual(float32VectorOf('x y z', FAKE_DIMENSIONS));
  });

  it('bills the gateway-counted tokens at the sheet price (Gemini reports none)', async () => {
    const texts = ['alpha beta', 'gamma delta epsilon'];
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'gemini-embedding-001', input: texts });
    expect(response.status, response.text).toBe(200);
    const tokens = texts.reduce((sum, t) => sum + countTokens(t), 0);
    expect(response.json.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    await gateway.deps.usage.flush();
    const event = await gateway.deps.db.selectFrom('usage_events').selectAll().where('family', '=', 'embeddings').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(event.prompt_tokens).toBe(tokens);
    // $0.15 per 1M input tokens.
    expect(event.cost_usd).toBeCloseTo((tokens * 0.15) / 1e6, 12);
  });

  it('answers 502 with a clear message when Gemini returns fewer vectors than inputs', async () => {
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'house-short', input: ['a', 'b', 'c'] });
    expect(response.status).toBe(502);
    assertEnvelope('openai', response.json);
    expect(response.json.error.message).toContain('2 embeddings for 3 inputs');
  });

  it('refuses bad native requests in the Google envelope, and keys without the embeddings family', async () => {
    const path = `/v1beta/models/gemini-embedding-001:batchEmbedContents?key=${TEST_KEY}`;
    for (const body of [{ requests: [] }, { requests: [{ content: { parts: [] } }] }, { requests: [{ content: { parts: [{ text: 'a' }] }, taskType: 'NOPE' }] }]) {
      const response = await call(gateway, 'POST', path, body, {});
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json.error.status).toBe('INVALID_ARGUMENT');
    }
    const chatOnly = await createKey(gateway, { name: 'chat only', endpoints: ['generate-content'] });
    const refused = await call(gateway, 'POST', `/v1beta/models/gemini-embedding-001:batchEmbedContents?key=${chatOnly.key}`, { requests: [{ content: { parts: [{ text: 'a' }] } }] }, {});
    expect(refused.status).toBe(403);
    const embedOnly = await createKey(gateway, { name: 'embed only', endpoints: ['embeddings'] });
    const allowed = await genai(gateway, embedOnly.key).models.embedContent({ model: 'gemini-embedding-001', contents: ['ok'] });
    expect(allowed.embeddings).toHaveLength(1);
    // A generate-content model has no embedContent: the ordinary 404.
    const missing = await call(gateway, 'POST', `/v1beta/models/nope-model:embedContent?key=${TEST_KEY}`, { content: { parts: [{ text: 'a' }] } }, {});
    expect(missing.status).toBe(404);
  });

  it('on the simulator: @google/genai gets deterministic unit vectors, related texts closer, on Gemini and OpenAI models alike', async () => {
    const texts = ['weather in paris today', 'paris weather forecast', 'stock market crash'];
    for (const model of ['gemini-embedding-001', 'text-embedding-3-small']) {
      const answer = await genai(simulated).models.embedContent({ model, contents: texts, config: { outputDimensionality: 256 } });
      const vectors = answer.embeddings!.map((e) => e.values!);
      expect(vectors.map((v) => v.length), model).toEqual([256, 256, 256]);
      const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
      expect(dot(vectors[0]!, vectors[0]!)).toBeCloseTo(1, 5);
      expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));
      // The same text through /v1/embeddings gives the same vector.
      const same = await call(simulated, 'POST', '/v1/embeddings', { model, input: texts[0], dimensions: 256 });
      expect(bitsOf(same.json.data[0].embedding)).toEqual(bitsOf(vectors[0]!));
    }
  });
});
