import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const body = (extra: Record<string, unknown> = {}) => ({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hello' }], ...extra });
const headers = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };

describe('chat completions: error envelopes, upstream faults and SSE framing (issue 2)', () => {
  let gateway: TestGateway;
  const sim = () => gateway.deps.simulators.get('simulator-openai')!;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { bodyLimitBytes: 64 * 1024 } });
  });
  afterEach(() => sim().setOptions({}));
  afterAll(() => gateway.stop());

  it('401 for a missing key in the chat envelope', async () => {
    const response = await call(gateway, 'POST', '/v1/chat/completions', body(), {});
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String) } });
  });

  it('400 for malformed JSON, a non-object body and an empty body', async () => {
    const malformed = await call(gateway, 'POST', '/v1/chat/completions', '{"model": "delta-4.1",');
    expect(malformed.status).toBe(400);
    expect(malformed.json).toEqual({ error: { code: 'invalid_json', message: expect.stringContaining('JSON') } });
    const array = await call(gateway, 'POST', '/v1/chat/completions', '[1,2]');
    expect(array.status).toBe(400);
    expect(array.json.error.code).toBe('invalid_parameter');
    const empty = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { code: string } }).error.code).toMatch(/invalid_/);
  });

  it('413 for a body over the size limit, in the envelope', async () => {
    const response = await call(gateway, 'POST', '/v1/chat/completions', body({ padding: 'x'.repeat(100 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.json).toEqual({ error: { code: 'request_too_large', message: expect.any(String) } });
  });

  it('accepts a JSON body sent without a JSON content type (curl -d)', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify(body()),
    });
    expect(response.status).toBe(200);
  });

  it('an upstream 429 stays 429 with its Retry-After', async () => {
    sim().setOptions({ fault_status: 429, fault_retry_after_s: 7 });
    const response = await call(gateway, 'POST', '/v1/chat/completions', body());
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.json.error.code).toBe('upstream_rate_limited');
  });

  it('rejected upstream credentials are a 502 that never shows them', async () => {
    sim().setOptions({ fault_status: 401 });
    const response = await call(gateway, 'POST', '/v1/chat/completions', body());
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('upstream_auth_failed');
    expect(response.text).not.toContain('simulator-key');
    expect(response.text).not.toContain('127.0.0.1');
  });

  it.each([
    [500, 502],
    [502, 502],
    [503, 503],
    [504, 504],
  ])('an upstream %i becomes a %i', async (upstream, expected) => {
    sim().setOptions({ fault_status: upstream });
    const response = await call(gateway, 'POST', '/v1/chat/completions', body());
    expect(response.status).toBe(expected);
    expect(Object.keys(response.json.error).sort()).toEqual(['code', 'message']);
  });

  it('streams SSE frames of chat.completion.chunk ending in data: [DONE]', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body({ stream: true })) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames.every((f) => f.startsWith('data: '))).toBe(true);
    expect(frames.at(-1)).toBe('data: [DONE]');
    for (const frame of frames.slice(0, -1)) expect(JSON.parse(frame.slice(6)).object).toBe('chat.completion.chunk');
  });

  it('a stream cut mid-way ends with an error event and no [DONE]', async () => {
    sim().setOptions({ cut_stream_after: 3 });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body({ stream: true })) });
    const text = await response.text();
    expect(text).not.toContain('[DONE]');
    const last = JSON.parse(text.trim().split('\n\n').at(-1)!.slice(6));
    expect(last).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(text).not.toContain('"finish_reason":"stop"');
  });

  it('a client that disconnects aborts the upstream request', async () => {
    sim().setOptions({ tokens_per_second: 20 });
    const abortedBefore = sim().aborted.count;
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body({ stream: true })), signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(() => sim().aborted.count, { timeout: 3000 }).toBeGreaterThan(abortedBefore);
  });
});
