import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/**
 * Issue 32 with the vendors' official SDKs (the openai SDK is in response-cache.test.ts): the
 * Anthropic SDK and @google/genai read the same answer from a hit as from the miss, whole and
 * streamed, and no upstream is called for it.
 */
describe('response cache with the Anthropic SDK and @google/genai (issue 32)', () => {
  let gateway: TestGateway;
  const upstreamCalls = () => [...gateway.deps.simulators.values()].reduce((n, s) => n + s.requests.length, 0);

  beforeAll(async () => {
    gateway = await startTestGateway({ file: { cache: { enabled: true, ttl_seconds: 600 } } });
  });
  afterAll(() => gateway.stop());

  it('Anthropic SDK: create and stream read the stored answer', async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    const params = { model: 'alpha-sonnet-4-5-20250929', max_tokens: 64, messages: [{ role: 'user' as const, content: 'anthropic sdk cached question' }] };
    const first = await client.messages.create(params).withResponse();
    expect(first.response.headers.get('x-cache')).toBe('MISS');
    const calls = upstreamCalls();
    const again = await client.messages.create(params).withResponse();
    expect(again.response.headers.get('x-cache')).toBe('HIT');
    expect(again.data).toEqual(first.data);
    const streamed = await client.messages.stream(params).finalMessage();
    expect(streamed.content).toEqual(first.data.content);
    expect(streamed.usage.output_tokens).toBe(first.data.usage.output_tokens);
    expect(upstreamCalls()).toBe(calls);
  });

  it('@google/genai: generateContent and generateContentStream read the stored answer', async () => {
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.url } });
    const request = { model: 'gamma-2.5-flash-lite', contents: 'genai cached question' };
    const first = await ai.models.generateContent(request);
    const calls = upstreamCalls();
    const again = await ai.models.generateContent(request);
    expect(again.text).toBe(first.text);
    expect(again.usageMetadata?.candidatesTokenCount).toBe(first.usageMetadata?.candidatesTokenCount);
    let streamedText = '';
    for await (const chunk of await ai.models.generateContentStream(request)) streamedText += chunk.text ?? '';
    expect(streamedText).toBe(first.text);
    expect(upstreamCalls()).toBe(calls);
  });
});
