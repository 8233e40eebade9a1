import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { admin } from '../../helpers/admin.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/** Issue 29: retrieval end to end on the built-in simulator, with plain fetch. */
describe('POST /v1/rerank and simulator embeddings (issue 29)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // Priced as the sheet prices Cohere's rerank: simulated answers are free unless priced (issue 35).
    gateway = await startTestGateway({ file: { request_log: { bodies: true }, prices: { 'rerank-v3.5': { per_search: 0.002 } } } });
  });
  afterAll(() => gateway.stop());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const jsonOf = async (response: Response): Promise<any> => response.json();
  const post = (path: string, body: unknown) =>
    fetch(gateway.url + path, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('ranks the documents sharing the query words first, top_n and return_documents applied', async () => {
    const documents = ['the weather in paris is sunny', { text: 'stock prices fell sharply' }, 'paris weather forecast for tomorrow'];
    const response = await post('/v1/rerank', { model: 'rerank-v3.5', query: 'weather in paris', documents, top_n: 2, return_documents: true });
    const json = await jsonOf(response);
    expect(response.status, JSON.stringify(json)).toBe(200);
    expect(json.results).toHaveLength(2);
    expect(json.results.map((r: { index: number }) => r.index).sort()).toEqual([0, 2]);
    expect(json.results[0].relevance_score).toBeGreaterThanOrEqual(json.results[1].relevance_score);
    expect(json.results[0].document.text).toBe(documents[json.results[0].index]);
    await gateway.deps.usage.flush();
    const event = await gateway.deps.db.selectFrom('usage_events').selectAll().where('family', '=', 'rerank').orderBy('id', 'desc').executeTakeFirstOrThrow();
    // One search at $0.002.
    expect(event.cost_usd).toBe(0.002);
  });

  it('refuses a rerank without documents with 400 naming them', async () => {
    const response = await post('/v1/rerank', { model: 'rerank-v3.5', query: 'q', documents: [] });
    expect(response.status).toBe(400);
    const json = await jsonOf(response);
    assertEnvelope('openai', json);
    expect(json.error.param).toBe('documents');
  });

  it('simulator vectors: unit length, deterministic, shared words closer, dimensions honoured', async () => {
    const texts = ['red apples and green pears', 'green pears are sweet', 'quantum field theory'];
    const answer = await jsonOf(await post('/v1/embeddings', { model: 'text-embedding-3-small', input: texts }));
    const vectors: number[][] = answer.data.map((d: { embedding: number[] }) => d.embedding);
    expect(vectors[0]).toHaveLength(1536);
    const dot = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
    expect(dot(vectors[0]!, vectors[0]!)).toBeCloseTo(1, 5);
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!) + 0.2);
    const again = await jsonOf(await post('/v1/embeddings', { model: 'text-embedding-3-small', input: texts[0], dimensions: 64, encoding_format: 'base64' }));
    expect(Buffer.from(again.data[0].embedding, 'base64').length).toBe(64 * 4);
  });

  it('keeps the inputs in the request log but the answer only as count × dimensions', async () => {
    expect((await post('/v1/embeddings', { model: 'text-embedding-3-small', input: ['keep this input', 'and this'], encoding_format: 'float' })).status).toBe(200);
    const page = await admin(gateway, 'GET', '/requests?limit=1');
    const entry = (await admin(gateway, 'GET', `/requests/${page.json.data[0].id}`)).json;
    expect(JSON.parse(entry.request_body).input).toEqual(['keep this input', 'and this']);
    expect(JSON.parse(entry.response_body)).toEqual({ summary: '2 embeddings × 1536 dimensions' });
  });
});
