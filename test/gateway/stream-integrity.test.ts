import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { parseGoldenStream } from '../helpers/golden.js';

/**
 * Vendors that send several events in ONE socket write (bursty TCP reads): what the client gets
 * must not depend on how the bytes were split (issue 14, items 2 and 3).
 */
const openaiChunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const anthropicEvent = (type: string, body: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
const anthropicText = (text: string) => anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
const anthropicStart =
  anthropicEvent('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'up', content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } }) +
  anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
const geminiChunk = (text: string) => `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }] })}\n\n`;

const WORDS = ['Hello', ' there', '!'];
const STREAMS: Record<string, { vendor: string; body: string; path: string }> = {
  'OpenAI malformed chunk': { vendor: 'openai', path: '/v1', body: WORDS.map(openaiChunk).join('') + 'data: {"id":"c1","choices":[{"index":0,\n\n' },
  'Zhipu network_error': {
    vendor: 'zhipu',
    path: '/api/paas/v4',
    body: WORDS.map(openaiChunk).join('') + `data: ${JSON.stringify({ id: 'c1', created: 1, model: 'up', choices: [{ index: 0, delta: {}, finish_reason: 'network_error' }] })}\n\n`,
  },
  'Anthropic event: error': {
    vendor: 'anthropic',
    path: '',
    body: anthropicStart + WORDS.map(anthropicText).join('') + anthropicEvent('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
  },
  'Gemini error chunk': { vendor: 'gemini', path: '', body: WORDS.map(geminiChunk).join('') + `data: ${JSON.stringify({ error: { code: 500, message: 'Internal error', status: 'INTERNAL' } })}\n\n` },
};

/** Serves `body` as one write; `mode` 'json' answers a stream request with 200 JSON instead. */
async function burstVendor(): Promise<{ url: string; server: Server; next: Array<{ body: string; json?: boolean }>; hits: () => number }> {
  const next: Array<{ body: string; json?: boolean }> = [];
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      const reply = next.shift();
      if (!reply) return res.writeHead(500).end();
      res.writeHead(200, { 'content-type': reply.json ? 'application/json' : 'text/event-stream' });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, next, hits: () => hits };
}

describe('stream integrity with bursty upstream reads', () => {
  let gateway: TestGateway;
  let vendor: Awaited<ReturnType<typeof burstVendor>>;
  const models: Record<string, string> = {};
  const stream = async (model: string) => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
    });
    return { status: response.status, simulated: response.headers.get('x-simulator'), events: await parseGoldenStream(await response.text()) };
  };

  beforeAll(async () => {
    vendor = await burstVendor();
    // One public model per vendor form, each served first by the burst vendor, then by a simulator.
    const publicIds = ['delta-4.1', 'beta-seed-2.0-pro', 'beta-seed-2.0-code', 'beta-seed-2.0-lite'];
    const channels = Object.entries(STREAMS).flatMap(([name, { vendor: kind, path }], i) => {
      models[name] = publicIds[i]!;
      return [
        { name: `burst-${kind}`, vendor: kind, base_url: `${vendor.url}${path}`, api_key: 'k', models: { [publicIds[i]!]: 'up' }, priority: 0, max_retries: 0 },
        { name: `backup-${kind}`, vendor: 'openai', models: { [publicIds[i]!]: 'gpt-4.1' }, priority: 1 },
      ];
    });
    gateway = await startTestGateway({ file: { routing: { circuit_threshold: 1000 }, channels } });
  });
  afterAll(async () => {
    await gateway.stop();
    vendor.server.close();
  });

  for (const [name, { body }] of Object.entries(STREAMS)) {
    it(`${name}: every delta before the error reaches the client, then the error event`, async () => {
      vendor.next.push({ body });
      const { status, events } = await stream(models[name]!);
      expect(status).toBe(200);
      const text = events.flatMap((e) => ((e.data as any)?.choices ?? []).map((c: any) => c.delta?.content ?? '')).join('');
      expect(text).toBe(WORDS.join(''));
      const last = events.at(-1)!.data as { error?: { message: string } };
      expect(last.error?.message).toBeTruthy();
      expect(events.some((e) => e.data === '[DONE]')).toBe(false);
    });
  }

  it('an error as the very first event is a failed attempt: the next channel answers', async () => {
    vendor.next.push({ body: anthropicEvent('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }) });
    const { status, simulated, events } = await stream(models['Anthropic event: error']!);
    expect(status).toBe(200);
    expect(simulated).toBe('openai');
    expect(events.at(-1)!.data).toBe('[DONE]');
  });

  it('a stream request answered 200 application/json {"error":…} is a failed attempt too', async () => {
    vendor.next.push({ body: JSON.stringify({ error: { message: 'upstream busy', type: 'server_error' } }), json: true });
    const { status, simulated, events } = await stream(models['OpenAI malformed chunk']!);
    expect(status).toBe(200);
    expect(simulated).toBe('openai');
    expect(events.at(-1)!.data).toBe('[DONE]');
  });

  it('idle_ms ends a stream that goes silent after its first events, on time', async () => {
    const silent = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(openaiChunk('Hello'));
        setTimeout(() => res.end(), 3000);
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const idle = await startTestGateway({
      file: {
        channels: [{ name: 'quiet', vendor: 'openai', base_url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`, api_key: 'k', models: { 'delta-4.1': 'up' }, timeouts: { idle_ms: 400 } }],
      },
    });
    try {
      const started = performance.now();
      const response = await fetch(`${idle.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      const events = await parseGoldenStream(await response.text());
      const elapsed = performance.now() - started;
      expect((events[0]!.data as any).choices[0].delta.content).toBe('Hello');
      expect((events.at(-1)!.data as any).error.message).toContain('silent');
      expect(elapsed).toBeGreaterThanOrEqual(380);
      expect(elapsed).toBeLessThan(2000);
    } finally {
      await idle.stop();
      silent.closeAllConnections();
      silent.close();
    }
  });
});
