import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitsOf } from '../../helpers/fake-vendor.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { embeddingVector } from '../../../src/simulator/embedding-vectors.js';

/**
 * Issue 29: the OpenAI-compatible embedding endpoints of DashScope (compatible mode, 10 inputs a
 * call, floats only), Zhipu (64 a call, floats only) and Volcengine Ark (base64), each on its
 * vendor's simulator, which refuses what the vendor refuses.
 */
describe('embeddings on DashScope, Zhipu and Ark (issue 29)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: {
        channels: [
          { name: 'sim-dashscope', vendor: 'alibaba-dashscope', api_key: 'simulator-key', models: { 'text-embedding-v3': 'text-embedding-v3' } },
          { name: 'sim-zhipu', vendor: 'zhipu', api_key: 'simulator-key', models: { 'embedding-3': 'embedding-3' } },
          { name: 'sim-ark', vendor: 'volcengine-ark', api_key: 'simulator-key', models: { 'doubao-embedding-text-240715': 'doubao-embedding-text-240715' } },
        ],
      },
    });
  });
  afterAll(() => gateway.stop());

  const client = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1` });
  const requestsOf = (channel: string) => gateway.deps.simulators.get(channel)!.requests;

  it.each([
    ['sim-dashscope', 'text-embedding-v3', 25, 10, '/compatible-mode/v1/embeddings', 'float'],
    ['sim-zhipu', 'embedding-3', 70, 64, '/api/paas/v4/embeddings', 'float'],
    ['sim-ark', 'doubao-embedding-text-240715', 30, 256, '/api/v3/embeddings', 'base64'],
  ] as const)('%s: the openai SDK default (base64) gets exact vectors, split by the vendor limit', async (channel, model, count, limit, path, asked) => {
    const texts = Array.from({ length: count }, (_, i) => `retrieval text ${i}`);
    const before = requestsOf(channel).length;
    const answer = await client().embeddings.create({ model, input: texts, dimensions: 256 });
    const sent = requestsOf(channel).slice(before);
    expect(sent.map((r) => r.path).every((p) => p === path)).toBe(true);
    expect(sent.map((r) => (r.body as { input: string[] }).input.length)).toEqual(Array.from({ length: Math.ceil(count / limit) }, (_, i) => Math.min(limit, count - i * limit)));
    expect(sent.every((r) => (r.body as { encoding_format?: string }).encoding_format === asked)).toBe(true);
    expect(answer.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    answer.data.forEach((item, i) => expect(bitsOf(item.embedding)).toEqual(bitsOf(embeddingVector(texts[i]!, 256))));
  });
});
