import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { bearer, createKey } from '../helpers/admin.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { parseSse } from '../../src/sse/parse.js';

const USER = [{ role: 'user', content: 'Say something about rate limits' }];
const chat = (gateway: TestGateway, secret: string, extra: Record<string, unknown> = {}) =>
  call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: USER, max_tokens: 20, ...extra }, bearer(secret));

const limitHeaders = (headers: Headers, kind: 'requests' | 'tokens') => ({
  limit: headers.get(`x-ratelimit-limit-${kind}`),
  remaining: headers.get(`x-ratelimit-remaining-${kind}`),
  reset: headers.get(`x-ratelimit-reset-${kind}`),
});

/** Streams a chat completion to the end; returns the headers and the usage chunk's totals. */
async function streamChat(gateway: TestGateway, secret: string, body: Record<string, unknown>) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...bearer(secret), 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'delta-4.1', messages: USER, stream: true, stream_options: { include_usage: true }, ...body }),
  });
  let usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
  for await (const event of parseSse(response.body!)) {
    if (event.data === '[DONE]') continue;
    const chunk = JSON.parse(event.data) as { usage?: typeof usage };
    if (chunk.usage) usage = chunk.usage;
  }
  return { status: response.status, headers: response.headers, usage: usage! };
}

describe('rate limits per key and model (issue 4)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { tiers: { default: { 'gamma-2.5-flash-lite': { rpm: 2 } }, gold: { default: { rpm: 3 } } } } });
  });
  afterAll(() => gateway.stop());

  const tokensLeft = (keyId: string, model: string, tpm: number) => gateway.app.admission.limiters.state('tokens', `${keyId}:${model}`, tpm).then((s) => s.remaining);

  it('rpm 5: five requests pass counting down, the sixth is 429 with Retry-After in the chat envelope', async () => {
    const { key } = await createKey(gateway, { rpm: 5 });
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 5; i++) {
      const response = await chat(gateway, key);
      expect(response.status).toBe(200);
      const headers = limitHeaders(response.headers, 'requests');
      expect(headers.limit).toBe('5');
      expect(headers.reset).toMatch(/^(\d+m)?\d+s$/);
      remaining.push(headers.remaining);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const sixth = await chat(gateway, key);
    expect(sixth.status).toBe(429);
    assertEnvelope('chat', sixth.json);
    expect(sixth.json.error.code).toBe('rate_limit_exceeded');
    const retryAfter = Number(sixth.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limitHeaders(sixth.headers, 'requests')).toMatchObject({ limit: '5', remaining: '0' });
    // Limits count per key and model: another model has its own five.
    expect((await chat(gateway, key, { model: 'epsilon-4.7' })).status).toBe(200);
  });

  it("a tier's per-model limit applies to keys without their own, in the family's envelope (/v1beta)", async () => {
    const { key } = await createKey(gateway, {});
    const path = '/v1beta/models/gamma-2.5-flash-lite:generateContent';
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    expect((await call(gateway, 'POST', path, body, { 'x-goog-api-key': key })).status).toBe(200);
    expect((await call(gateway, 'POST', path, body, { 'x-goog-api-key': key })).status).toBe(200);
    const third = await call(gateway, 'POST', path, body, { 'x-goog-api-key': key });
    expect(third.status).toBe(429);
    expect(third.json.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    // The default tier lists no limit for delta-4.1 (and no `default` entry): no limit, no headers.
    const unlimited = await chat(gateway, key);
    expect(unlimited.status).toBe(200);
    expect(unlimited.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });

  it("a named tier's default entry applies to every model", async () => {
    const { key } = await createKey(gateway, { tier: 'gold' });
    for (let i = 0; i < 3; i++) expect((await chat(gateway, key, { model: 'epsilon-4.7' })).status).toBe(200);
    expect((await chat(gateway, key, { model: 'epsilon-4.7' })).status).toBe(429);
  });

  it('tpm on streams: the estimate is reserved at admission and settled to the real usage at the end', async () => {
    const tpm = 10_000;
    const { id, key } = await createKey(gateway, { tpm });
    const first = await streamChat(gateway, key, { max_tokens: 300 });
    expect(first.status).toBe(200);
    const reserved = tpm - Number(first.headers.get('x-ratelimit-remaining-tokens'));
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe(String(tpm));
    expect(reserved).toBeGreaterThan(300); // prompt tokens + the requested maximum
    expect(first.usage.total_tokens).toBeLessThan(reserved);
    // Once the stream has ended, the counter holds what it really used, not the reservation.
    await expect.poll(() => tokensLeft(id, 'delta-4.1', tpm)).toBe(tpm - first.usage.total_tokens);
    const second = await streamChat(gateway, key, { max_tokens: 300 });
    expect(Number(second.headers.get('x-ratelimit-remaining-tokens'))).toBe(tpm - first.usage.total_tokens - reserved);
  });

  it('tpm holds while a stream is running: its reservation refuses a second request that would exceed it', async () => {
    const simulator = gateway.deps.simulators.get('simulator-openai')!;
    simulator.setOptions({ tokens_per_second: 40 });
    try {
      const tpm = 150;
      const { id, key } = await createKey(gateway, { tpm });
      const controller = new AbortController();
      const slow = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        signal: controller.signal,
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', messages: USER, stream: true, max_tokens: 100 }),
      });
      expect(slow.status).toBe(200);
      const left = Number(slow.headers.get('x-ratelimit-remaining-tokens'));
      expect(left).toBeLessThan(50);
      const refused = await chat(gateway, key, { max_tokens: 60 });
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe('rate_limit_exceeded');
      expect(refused.json.error.message).toMatch(/tokens/);
      expect(limitHeaders(refused.headers, 'tokens')).toMatchObject({ limit: '150', remaining: String(left) });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The refusal took nothing: the counter still holds only the running stream's reservation.
      expect(await tokensLeft(id, 'delta-4.1', tpm)).toBe(left);
      controller.abort();
    } finally {
      simulator.setOptions({});
    }
  });
});
