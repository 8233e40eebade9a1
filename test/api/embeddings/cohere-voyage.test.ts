import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitsOf, float32VectorOf, startFakeVendor, type FakeCall, type FakeVendor } from '../../helpers/fake-vendor.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/**
 * Issue 29: Cohere v2 and Voyage as embedding and rerank upstreams, each behind a fake that
 * enforces the vendor's documented request (protocols/embeddings.md §3-§5): Cohere's 96 texts a
 * call, `input_type`, `embedding_types`; Voyage's `output_dimension`, `top_k`, base64.
 */
const COHERE_KEY = 'cohere-upstream-key';
const VOYAGE_KEY = 'voyage-upstream-key';
const DIMENSIONS = 16;
const COHERE_TOKENS_PER_TEXT = 3;
const VOYAGE_TOKENS_PER_TEXT = 5;
const toBase64 = (values: readonly number[]) => Buffer.from(new Float32Array(values).buffer).toString('base64');
/** A fixed score per document text, so the expected order is known. */
const scoreOf = (text: string) => (text.length % 10) / 10 + 0.01;

function fakeCohere(call: FakeCall) {
  if (call.headers.authorization !== `Bearer ${COHERE_KEY}`) return { status: 401, json: { message: 'invalid api token' } };
  const body = call.body as Record<string, unknown>;
  if (call.path === '/v2/embed') {
    const texts = body.texts as unknown[];
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) return { status: 400, json: { message: 'invalid request: texts must be a list of strings' } };
    if (texts.length > 96) return { status: 400, json: { message: 'invalid request: texts must have at most 96 items' } };
    if (!['search_document', 'search_query', 'classification', 'clustering'].includes(body.input_type as string)) return { status: 400, json: { message: 'invalid request: input_type is required' } };
    if (!Array.isArray(body.embedding_types) || !body.embedding_types.every((t) => ['float', 'int8', 'uint8', 'binary', 'ubinary', 'base64'].includes(t))) return { status: 400, json: { message: 'invalid embedding_types' } };
    if ('input' in body || 'dimensions' in body || 'encoding_format' in body) return { status: 400, json: { message: 'invalid request: unknown field' } };
    const dims = (body.output_dimension as number | undefined) ?? DIMENSIONS;
    const float = (texts as string[]).map((t) => float32VectorOf(t, dims));
    return { json: { id: 'emb-1', response_type: 'embeddings_by_type', embeddings: { float }, texts, meta: { api_version: { version: '2' }, billed_units: { input_tokens: texts.length * COHERE_TOKENS_PER_TEXT } } } };
  }
  if (call.path === '/v2/rerank') {
    const documents = body.documents as unknown[];
    if (typeof body.query !== 'string' || !Array.isArray(documents) || !documents.every((d) => typeof d === 'string')) return { status: 400, json: { message: 'invalid request: query and documents (strings)' } };
    if ('return_documents' in body || 'top_k' in body) return { status: 400, json: { message: 'invalid request: unknown field' } };
    const results = (documents as string[]).map((d, index) => ({ index, relevance_score: scoreOf(d) })).sort((a, b) => b.relevance_score - a.relevance_score);
    return { json: { id: 'rr-1', results: results.slice(0, (body.top_n as number | undefined) ?? results.length), meta: { billed_units: { search_units: 1 } } } };
  }
  return { status: 404, json: { message: 'not found' } };
}

function fakeVoyage(call: FakeCall) {
  if (call.headers.authorization !== `Bearer ${VOYAGE_KEY}`) return { status: 401, json: { detail: 'Provided API key is invalid.' } };
  const body = call.body as Record<string, unknown>;
  if (call.path === '/v1/embeddings') {
    const input = body.input as string[];
    if ('dimensions' in body || 'input_types' in body) return { status: 400, json: { detail: 'unknown argument' } };
    if (body.encoding_format != null && body.encoding_format !== 'base64') return { status: 400, json: { detail: "encoding_format must be null or 'base64'" } };
    if (body.input_type != null && !['query', 'document'].includes(body.input_type as string)) return { status: 400, json: { detail: 'bad input_type' } };
    if (input.length > 1000) return { status: 400, json: { detail: 'The batch size limit is 1000.' } };
    const dims = (body.output_dimension as number | undefined) ?? DIMENSIONS;
    const data = input.map((t, index) => ({ object: 'embedding', embedding: body.encoding_format === 'base64' ? toBase64(float32VectorOf(t, dims)) : float32VectorOf(t, dims), index }));
    return { json: { object: 'list', data, model: body.model, usage: { total_tokens: input.length * VOYAGE_TOKENS_PER_TEXT } } };
  }
  if (call.path === '/v1/rerank') {
    if ('top_n' in body) return { status: 400, json: { detail: "unknown argument 'top_n'" } };
    const documents = body.documents as string[];
    const data = documents.map((d, index) => ({ relevance_score: scoreOf(d), index })).sort((a, b) => b.relevance_score - a.relevance_score);
    return { json: { object: 'list', data: data.slice(0, (body.top_k as number | undefined) ?? data.length), model: body.model, usage: { total_tokens: 42 } } };
  }
  return { status: 404, json: { detail: 'Not Found' } };
}

describe('Cohere and Voyage embeddings and rerank (issue 29)', () => {
  let cohere: FakeVendor;
  let voyage: FakeVendor;
  let gateway: TestGateway;

  beforeAll(async () => {
    cohere = await startFakeVendor(fakeCohere);
    voyage = await startFakeVendor(fakeVoyage);
    gateway = await startTestGateway({
      file: {
        channels: [
          { name: 'fake-cohere', vendor: 'cohere', base_url: cohere.url, api_key: COHERE_KEY, models: { 'embed-v4.0': 'embed-v4.0', 'rerank-v3.5': 'rerank-v3.5' } },
          { name: 'fake-voyage', vendor: 'voyage', base_url: `${voyage.url}/v1`, api_key: VOYAGE_KEY, models: { 'voyage-3.5': 'voyage-3.5', 'rerank-2.5': 'rerank-2.5' } },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await cohere.close();
    await voyage.close();
  });

  const client = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1` });
  const lastEvent = async (family: string) => {
    await gateway.deps.usage.flush();
    return gateway.deps.db.selectFrom('usage_events').selectAll().where('family', '=', family).orderBy('id', 'desc').executeTakeFirstOrThrow();
  };

  it('splits 2,048 inputs into Cohere calls of 96 and answers in order, base64 exact to the bit, billed to the nano-dollar', async () => {
    const texts = Array.from({ length: 2048 }, (_, i) => `doc ${i} ${'w'.repeat(i % 11)}`);
    const before = cohere.calls.length;
    const answer = await client().embeddings.create({ model: 'embed-v4.0', input: texts });
    const sent = cohere.calls.slice(before);
    expect(sent).toHaveLength(Math.ceil(2048 / 96));
    expect(sent.every((c) => c.body.input_type === 'search_document' && (c.body.embedding_types as string[]).includes('float'))).toBe(true);
    expect(answer.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    answer.data.forEach((item, i) => expect(bitsOf(item.embedding)).toEqual(bitsOf(float32VectorOf(texts[i]!, DIMENSIONS))));
    const tokens = 2048 * COHERE_TOKENS_PER_TEXT;
    expect(answer.usage.prompt_tokens).toBe(tokens);
    const event = await lastEvent('embeddings');
    expect(event.prompt_tokens).toBe(tokens);
    // $0.12 per 1M.
    expect(event.cost_usd).toBeCloseTo((tokens * 0.12) / 1e6, 12);
  });

  it('maps input_type query to search_query and dimensions to output_dimension; explicit float is exact', async () => {
    const answer = await client().embeddings.create({ model: 'embed-v4.0', input: 'what is a cat', encoding_format: 'float', dimensions: 256, input_type: 'query' } as OpenAI.EmbeddingCreateParams);
    expect(cohere.calls.at(-1)!.body).toMatchObject({ model: 'embed-v4.0', texts: ['what is a cat'], input_type: 'search_query', output_dimension: 256 });
    expect(answer.data[0]!.embedding).toEqual(float32VectorOf('what is a cat', 256));
  });

  it('reranks through Cohere /v2/rerank: sorted, top_n applied, documents returned by the gateway, one search billed', async () => {
    const documents = ['a', 'abcdefghi', { text: 'abcd' }, 'abcdef'];
    const response = await call(gateway, 'POST', '/v1/rerank', { model: 'rerank-v3.5', query: 'q', documents, top_n: 3, return_documents: true });
    expect(response.status, response.text).toBe(200);
    expect(cohere.calls.at(-1)!.body).toEqual({ model: 'rerank-v3.5', query: 'q', documents: ['a', 'abcdefghi', 'abcd', 'abcdef'], top_n: 3 });
    expect(response.json.results.map((r: { index: number }) => r.index)).toEqual([1, 3, 2]);
    expect(response.json.results[0]).toEqual({ index: 1, relevance_score: scoreOf('abcdefghi'), document: { text: 'abcdefghi' } });
    expect((await lastEvent('rerank')).cost_usd).toBe(0.002);
  });

  it('Voyage embeddings: base64 passed to and from Voyage, output_dimension and input_type sent, total_tokens billed', async () => {
    const texts = ['first text', 'second one'];
    const answer = await client().embeddings.create({ model: 'voyage-3.5', input: texts, dimensions: 512, input_type: 'document' } as OpenAI.EmbeddingCreateParams);
    expect(voyage.calls.at(-1)!.body).toEqual({ model: 'voyage-3.5', input: texts, input_type: 'document', output_dimension: 512, encoding_format: 'base64' });
    answer.data.forEach((item, i) => expect(bitsOf(item.embedding)).toEqual(bitsOf(float32VectorOf(texts[i]!, 512))));
    expect(answer.usage).toEqual({ prompt_tokens: 10, total_tokens: 10 });
    expect((await lastEvent('embeddings')).cost_usd).toBeCloseTo((10 * 0.06) / 1e6, 12);
    const floats = await client().embeddings.create({ model: 'voyage-3.5', input: 'third', encoding_format: 'float' });
    expect(voyage.calls.at(-1)!.body).not.toHaveProperty('encoding_format');
    expect(floats.data[0]!.embedding).toEqual(float32VectorOf('third', DIMENSIONS));
  });

  it('Voyage rerank: top_n sent as top_k, billed by tokens', async () => {
    const response = await call(gateway, 'POST', '/v1/rerank', { model: 'rerank-2.5', query: 'q', documents: ['ab', 'abcde', 'abc'], top_n: 2 });
    expect(response.status, response.text).toBe(200);
    expect(voyage.calls.at(-1)!.body).toMatchObject({ top_k: 2 });
    expect(response.json.results.map((r: { index: number }) => r.index)).toEqual([1, 2]);
    expect(response.json.usage).toEqual({ total_tokens: 42 });
    expect((await lastEvent('rerank')).cost_usd).toBeCloseTo((42 * 0.05) / 1e6, 12);
  });

  it('an upstream error keeps its status class and never leaks the channel key', async () => {
    const response = await call(gateway, 'POST', '/v1/embeddings', { model: 'embed-v4.0', input: [[1, 2, 3]] });
    expect(response.status).toBe(400);
    expect(response.json.error.param).toBe('input');
    expect(response.text).not.toContain(COHERE_KEY);
  });
});
