import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { createKey } from '../../helpers/admin.js';
import { startFakeBedrock, type FakeAnswer, type FakeBedrock, type FakeCall } from './fake-bedrock.js';
import { bedrock } from '../../../src/providers/bedrock/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

const REGION = 'us-west-2';
const KEYS = { accessKeyId: 'AKIAFAKEBEDROCKEMBED1', secretAccessKey: 'fake/Embed+Secret/0123456789abcdefghijklmn' };
const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-english-v3';

/** A vector of `size` values that says which text it embeds (its first value). */
const vectorFor = (text: string, size: number): number[] => [text.length, ...Array.from({ length: size - 1 }, (_, i) => (i % 7) / 8)];

/** Answers like Bedrock: Titan one `inputText`, Cohere its `texts`, each in its own answer shape. */
function answer(c: FakeCall): FakeAnswer {
  if (c.operation !== 'invoke') return { json: { message: 'unexpected operation' }, status: 400, exception: 'ValidationException' };
  if (c.modelId === TITAN) {
    const text = c.body.inputText as string;
    if (text === 'too long for titan') return { json: { message: '400 Bad Request: Too many input tokens. Max input tokens: 8192' }, status: 400, exception: 'ValidationException' };
    const vector = vectorFor(text, (c.body.dimensions as number | undefined) ?? 1024);
    return { json: { embedding: vector, embeddingsByType: { float: vector }, inputTextTokenCount: text.split(' ').length + 2 } };
  }
  const texts = c.body.texts as string[];
  return { json: { id: 'emb-1', texts, embeddings: { float: texts.map((text) => vectorFor(text, 1024)) }, response_type: 'embeddings_by_type' } };
}

describe('Bedrock embeddings (issue 30): Titan and Cohere through InvokeModel, SigV4 verified by the fake', () => {
  let fake: FakeBedrock;
  let gateway: TestGateway;

  beforeAll(async () => {
    fake = await startFakeBedrock({ ...KEYS, region: REGION }, answer);
    gateway = await startTestGateway({
      file: {
        models: [{ id: 'titan-embed', kind: 'embedding' as const }, { id: 'cohere-embed', kind: 'embedding' as const }],
        channels: [
          {
            name: 'bedrock-embed',
            vendor: 'bedrock',
            base_url: fake.url,
            region: REGION,
            aws_access_key_id: KEYS.accessKeyId,
            aws_secret_access_key: KEYS.secretAccessKey,
            max_retries: 0,
            models: { 'titan-embed': TITAN, 'cohere-embed': COHERE },
          },
        ],
      },
    });
  });

  afterAll(async () => {
    await gateway.stop();
    await fake.close();
  });

  const openai = (key = TEST_KEY) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const lastEvent = async (keyId: string) => {
    await gateway.deps.usage.flush();
    return gateway.deps.db.selectFrom('usage_events').selectAll().where('key_id', '=', keyId).orderBy('id', 'desc').executeTakeFirstOrThrow();
  };

  it('Titan embeds one text per signed call, answers in input order with summed usage and its price', async () => {
    const { id, key } = await createKey(gateway, {});
    const before = fake.calls.length;
    const texts = ['first text', 'the second one here', 'third'];
    const answered = await openai(key).embeddings.create({ model: 'titan-embed', input: texts, dimensions: 256 });
    const sent = fake.calls.slice(before);
    expect(sent).toHaveLength(3);
    expect(sent.map((c) => c.path)).toEqual(Array(3).fill('/model/amazon.titan-embed-text-v2%3A0/invoke'));
    expect(sent.map((c) => c.body.inputText).sort()).toEqual([...texts].sort());
    expect(sent[0]!.body).toMatchObject({ dimensions: 256, normalize: true, embeddingTypes: ['float'] });
    expect(sent[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCKEMBED1\/\d{8}\/us-west-2\/bedrock\/aws4_request/);
    // The SDK asks for base64; each vector decodes back to the floats Titan sent, in input order.
    expect(answered.data.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(answered.data.map((item) => (item.embedding as number[])[0])).toEqual(texts.map((text) => text.length));
    expect(answered.data[0]!.embedding).toHaveLength(256);
    const tokens = texts.reduce((sum, text) => sum + text.split(' ').length + 2, 0);
    expect(answered.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    const event = await lastEvent(id);
    expect(event).toMatchObject({ prompt_tokens: tokens, channel: 'bedrock-embed', status: 200 });
    expect(Math.abs(event.cost_usd - (tokens * 0.02) / 1e6)).toBeLessThan(1e-12);
  });

  it('Cohere takes the texts in one call with input_type and embedding_types, read from the by-type answer', async () => {
    const before = fake.calls.length;
    const texts = ['what is bedrock', 'a managed model service'];
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'cohere-embed', input: texts, input_type: 'query', encoding_format: 'float' }, { authorization: `Bearer ${TEST_KEY}` });
    expect(response.status, response.text).toBe(200);
    const sent = fake.calls.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/model/cohere.embed-english-v3/invoke');
    expect(sent[0]!.body).toEqual({ texts, input_type: 'search_query', embedding_types: ['float'] });
    const json = response.json as { data: Array<{ index: number; embedding: number[] }>; usage: { prompt_tokens: number } };
    expect(json.data.map((item) => [item.index, item.embedding[0]])).toEqual([[0, texts[0]!.length], [1, texts[1]!.length]]);
    // Cohere on Bedrock reports no count in its body: the gateway counts the texts.
    expect(json.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("Titan's size rule is the client's 400 before any call; Bedrock's ValidationException is a 400 too", async () => {
    const before = fake.calls.length;
    const refused = await call(gateway, 'POST', '/v1/embeddings', { model: 'titan-embed', input: 'x', dimensions: 300 }, { authorization: `Bearer ${TEST_KEY}` });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toContain('256, 512 or 1024');
    expect(fake.calls.length).toBe(before);
    const upstream = await call(gateway, 'POST', '/v1/embeddings', { model: 'titan-embed', input: 'too long for titan' }, { authorization: `Bearer ${TEST_KEY}` });
    expect(upstream.status).toBe(400);
    expect((upstream.json as { error: { message: string } }).error.message).toContain('Too many input tokens');
  });

  it('token-id inputs are refused: Bedrock embeds text', async () => {
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'cohere-embed', input: [[1, 2, 3]] }, { authorization: `Bearer ${TEST_KEY}` });
    expect(response.status).toBe(400);
    expect((response.json as { error: { param: string } }).error.param).toBe('input');
  });
});

/** Every embeddings-* case under test/fixtures/bedrock/ through the pure InvokeModel embeddings translator. */
describe('embeddings → Bedrock InvokeModel golden cases (issue 43)', () => {
  const cases = loadCases('bedrock', (name) => name.startsWith('embeddings-'));

  it('covers Titan v2, its size rule and Cohere', () => {
    expect(cases.map((c) => c.name)).toEqual(['embeddings-cohere-base64', 'embeddings-titan-dimensions-refused', 'embeddings-titan-v2']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, bedrock.pairs.embeddings as GoldenPair));
  }
});
