import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A fake vendor that answers as the real ones (and the proxies in front of them) do on a bad day. */
async function fakeVendor(): Promise<{ url: string; server: Server; seen: number[]; next: Handler[] }> {
  const state = { seen: [] as number[], next: [] as Handler[] };
  const server = createServer((req, res) => {
    state.seen.push(Date.now());
    req.resume();
    req.on('end', () => (state.next.shift() ?? ok)(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, ...state };
}

const ok: Handler = (_req, res) => {
  const body = { candidates: [{ content: { role: 'model', parts: [{ text: 'fine' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 }, modelVersion: 'gemini-2.5-flash-lite' };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
/** Gemini's quota error: a bare 429 whose only delay is a RetryInfo detail. */
const quota = (delay: string): Handler => (_req, res) => {
  const error = {
    code: 429,
    message: 'Resource has been exhausted (e.g. check quota).',
    status: 'RESOURCE_EXHAUSTED',
    details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay }],
  };
  res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
};
const nginx = (status: number): Handler => (_req, res) =>
  res
    .writeHead(status, { 'content-type': 'text/html' })
    .end(`<html><head><title>${status}</title></head><body><center><h1>${status}</h1></center><hr><center>nginx/1.18.0 (Ubuntu) at internal-llm-07.corp:8443 /srv/vllm/app.py</center></body></html>`);

describe('upstream error bodies and Retry-After (issue 14, items 4-6)', () => {
  let gateway: TestGateway;
  let gemini: Awaited<ReturnType<typeof fakeVendor>>;
  let openai: Awaited<ReturnType<typeof fakeVendor>>;
  const generate = () =>
    fetch(`${gateway.url}/v1beta/models/gamma-2.5-flash-lite:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
  const chat = () =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    });

  beforeAll(async () => {
    gemini = await fakeVendor();
    openai = await fakeVendor();
    gateway = await startTestGateway({
      file: {
        routing: { retry_base_delay_ms: 5, retry_max_delay_ms: 3000, retry_max_wait_ms: 5000, circuit_threshold: 100 },
        channels: [
          { name: 'gemini-prod-account-7', vendor: 'gemini', base_url: gemini.url, api_key: 'g-secret', models: { 'gamma-2.5-flash-lite': 'gemini-2.5-flash-lite' }, max_retries: 1 },
          { name: 'selfhosted-vllm-3', vendor: 'openai', base_url: `${openai.url}/v1`, api_key: 'o-secret', models: { 'delta-4.1': 'gpt-4.1' }, max_retries: 0 },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    gemini.server.close();
    openai.server.close();
  });

  it("a bare Gemini 429 still gets Retry-After, from its RetryInfo", async () => {
    gemini.next.push(quota('7s'));
    const response = await generate();
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    // 7 s is over retry_max_wait_ms' share: not retried here, the client is told when to come back.
    await response.text();
  });

  it("the gateway's own retry waits as long as RetryInfo asks", async () => {
    gemini.next.push(quota('1s'), ok);
    const before = gemini.seen.length;
    const response = await generate();
    expect(response.status).toBe(200);
    const [first, second] = gemini.seen.slice(before);
    expect(second! - first!).toBeGreaterThanOrEqual(950);
  });

  it('a 429 with no delay anywhere gets the gateway backoff as Retry-After', async () => {
    openai.next.push(nginx(429));
    const response = await chat();
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
  });

  it('non-JSON upstream pages never reach the client, nor do channel names', async () => {
    for (const status of [400, 404, 502]) {
      openai.next.push(nginx(status));
      const response = await chat();
      const text = await response.text();
      expect(response.status, text).toBeGreaterThanOrEqual(400);
      for (const leak of ['nginx', 'Ubuntu', 'internal-llm', '/srv/', '<html', 'selfhosted-vllm-3']) expect(text).not.toContain(leak);
    }
  });

  it('a connection failure names no channel', async () => {
    const dead = await startTestGateway({
      file: { channels: [{ name: 'openai-prod-account-7', vendor: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'x', models: { 'delta-4.1': 'gpt-4.1' }, max_retries: 0 }] },
    });
    try {
      const response = await fetch(`${dead.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await response.text();
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(text).not.toContain('openai-prod-account-7');
    } finally {
      await dead.stop();
    }
  });
});

describe('a model the upstream no longer has, and timeouts on time (issue 14, items 7-8)', () => {
  let gateway: TestGateway;
  let gone: Awaited<ReturnType<typeof fakeVendor>>;
  const modelNotFound: Handler = (_req, res) =>
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: 'The model `gpt-4.1` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } }));
  const slow = (ms: number): Handler => (_req, res) => setTimeout(() => ok(_req, res), ms);
  const chatTo = (base: string, model: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  beforeAll(async () => {
    gone = await fakeVendor();
    gateway = await startTestGateway({
      file: {
        routing: { circuit_threshold: 100 },
        channels: [
          { name: 'retired', vendor: 'openai', base_url: `${gone.url}/v1`, api_key: 'k', models: { 'delta-4.1': 'gpt-4.1', 'beta-seed-2.0-pro': 'x' }, priority: 0, max_retries: 0 },
          { name: 'current', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' }, priority: 1 },
          { name: 'slow', vendor: 'gemini', base_url: gone.url, api_key: 'k', models: { 'gamma-2.5-flash-lite': 'gemini-2.5-flash-lite' }, max_retries: 0, timeouts: { first_byte_ms: 1300 } },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    gone.server.close();
  });

  it("an upstream 404 for the model falls back to the next channel", async () => {
    gone.next.push(modelNotFound);
    const response = await chatTo(gateway.url, 'delta-4.1');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-simulator')).toBe('openai');
  });

  it('when no channel has the model the client is told so, without the upstream text', async () => {
    gone.next.push(modelNotFound);
    const response = await chatTo(gateway.url, 'beta-seed-2.0-pro');
    const text = await response.text();
    expect(response.status).toBe(502);
    expect(text).toContain('No upstream provider currently serves this model');
    expect(text).not.toContain('gpt-4.1');
  });

  it('first_byte_ms: 1300 fires at 1300 ms (undici ticks its coarse timers every ~500 ms past 1 s)', async () => {
    gone.next.push(slow(2500));
    const started = performance.now();
    const response = await fetch(`${gateway.url}/v1beta/models/gamma-2.5-flash-lite:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const elapsed = performance.now() - started;
    expect(response.status).toBe(504);
    expect(elapsed).toBeGreaterThanOrEqual(1275);
    // Accurate to ~50 ms, with room for a busy CI machine: undici's own timer fired at ~1,520 ms here.
    expect(elapsed).toBeLessThan(1475);
  });
});
