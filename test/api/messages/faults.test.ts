import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/server.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { postStream } from './sse.js';

const request = { model: 'alpha-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hello' }] };

describe('POST /v1/messages upstream faults', () => {
  let gateway: TestGateway;
  let upstream: RunningSimulator;
  beforeAll(async () => {
    gateway = await startTestGateway();
    upstream = gateway.deps.simulators.get('simulator-anthropic')!;
  });
  afterEach(() => upstream.setOptions({}));
  afterAll(() => gateway.stop());

  const expectClean = (text: string) => {
    expect(text).not.toContain('simulator-key');
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('overloaded_error');
  };

  it('turns an upstream 529 (overloaded) into a 503', async () => {
    upstream.setOptions({ fault_status: 529 });
    const res = await call(gateway, 'POST', '/v1/messages', request);
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ error: { code: 'upstream_unavailable', message: expect.stringContaining('overloaded') } });
    expectClean(res.text);
  });

  it('turns a 529 before the first byte of a stream into a plain 503 JSON error', async () => {
    upstream.setOptions({ fault_status: 529 });
    const res = await call(gateway, 'POST', '/v1/messages', { ...request, stream: true });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.json.error.code).toBe('upstream_unavailable');
  });

  it('turns rejected upstream credentials (401) into a 502, not the client-facing 401', async () => {
    upstream.setOptions({ fault_status: 401 });
    const res = await call(gateway, 'POST', '/v1/messages', request);
    expect(res.status).toBe(502);
    expect(res.json).toEqual({ error: { code: 'upstream_auth_failed', message: expect.any(String) } });
    expectClean(res.text);
  });

  it('keeps an upstream 429 a 429 with its Retry-After', async () => {
    upstream.setOptions({ fault_status: 429, fault_retry_after_s: 7 });
    const res = await call(gateway, 'POST', '/v1/messages', request);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.json).toEqual({ error: { code: 'upstream_rate_limited', message: expect.any(String) } });
  });

  it('recovers once a transient fault has passed', async () => {
    upstream.setOptions({ fault_status: 529, fault_times: 1 });
    expect((await call(gateway, 'POST', '/v1/messages', request)).status).toBe(503);
    expect((await call(gateway, 'POST', '/v1/messages', request)).status).toBe(200);
  });

  it('ends a stream cut mid-way with the chat error event and no [DONE]', async () => {
    // A small pace lets the frames before the cut reach the gateway before the socket drops.
    upstream.setOptions({ cut_stream_after: 5, tokens_per_second: 2000 });
    const stream = await postStream(gateway, '/v1/messages', { ...request, stream: true });
    expect(stream.status).toBe(200);
    expect(stream.events).not.toContain('[DONE]');
    const chunks = stream.events.slice(0, -1) as Array<{ object: string }>;
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(stream.events.at(-1)).toEqual({ error: { code: 'upstream_error', message: expect.any(String) } });
  });

  it('ends a stream cut right after message_delta (before message_stop) with the error event', async () => {
    const whole = await postStream(gateway, '/v1/messages', { ...request, stream: true });
    expect(whole.events.at(-1)).toBe('[DONE]');
    // The upstream's frames are everything up to message_delta + message_stop; drop only the last.
    const upstreamFrames = (await fetchUpstreamFrameCount(upstream, request)) - 1;
    upstream.setOptions({ cut_stream_after: upstreamFrames, tokens_per_second: 2000 });
    const cut = await postStream(gateway, '/v1/messages', { ...request, stream: true });
    expect(cut.events).not.toContain('[DONE]');
    expect(cut.events.at(-1)).toEqual({ error: { code: 'upstream_error', message: expect.any(String) } });
    // The finish chunk waits for message_stop, so a cut stream never looks finished.
    const chunks = cut.events.slice(0, -1) as Array<{ choices: Array<{ finish_reason: string | null }> }>;
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
  });
});

/** Counts the SSE frames the simulator sends for this request, straight from the simulator. */
async function fetchUpstreamFrameCount(upstream: RunningSimulator, req: typeof request): Promise<number> {
  const response = await fetch(`${upstream.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5-20250929', max_tokens: 8192, temperature: 1, messages: req.messages, stream: true }),
  });
  const text = await response.text();
  expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
  return text.split('\n\n').filter((frame) => frame.trim()).length;
}
