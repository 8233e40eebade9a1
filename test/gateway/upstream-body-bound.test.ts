import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

const BOUND = 1024 * 1024;
const HUGE = 16 * 1024 * 1024;

/** Writes about `bytes` of `head` + filler + `tail` with backpressure; `cutOff` says whether the reader hung up first. */
function writeHuge(res: ServerResponse, status: number, head: string, tail: string, bytes: number, record: { cutOff: boolean; written: number }): void {
  const piece = Buffer.alloc(64 * 1024, 'a');
  res.writeHead(status, { 'content-type': 'application/json' });
  res.on('close', () => (record.cutOff = !res.writableFinished));
  res.write(head);
  const pump = () => {
    while (record.written < bytes) {
      if (res.destroyed) return;
      record.written += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    res.end(tail);
  };
  pump();
}

/** Issue 44: an upstream body the gateway reads whole is bounded (GATEWAY_MAX_UPSTREAM_BODY_BYTES), error bodies to 64 KiB. */
describe('upstream bodies read whole are bounded', () => {
  let gateway: TestGateway;
  let vendor: Server;
  let mode: 'answer' | 'error' = 'answer';
  const calls: { cutOff: boolean; written: number }[] = [];

  beforeAll(async () => {
    vendor = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const record = { cutOff: false, written: 0 };
        calls.push(record);
        // A chat completion whose content never ends, or an error page as long.
        if (mode === 'answer') writeHuge(res, 200, '{"id":"x","object":"chat.completion","model":"gpt-4.1","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"', '"}}]}', HUGE, record);
        else writeHuge(res, 500, '{"error":{"message":"', '"}}', HUGE, record);
      });
    });
    await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/v1`;
    gateway = await startTestGateway({
      env: { maxUpstreamBodyBytes: BOUND },
      file: { channels: [{ name: 'huge', vendor: 'openai', base_url: url, api_key: 'o-secret', models: { 'delta-4.1': 'gpt-4.1' }, max_retries: 0 }] },
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    vendor?.closeAllConnections();
    vendor?.close();
  });

  const chat = () =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('a non-streamed answer past the bound is a 502 upstream_bad_response, the upstream connection closed', async () => {
    mode = 'answer';
    const answer = await chat();
    expect(answer.status).toBe(502);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('upstream_bad_response');
    await vi.waitFor(() => expect(calls.at(-1)!.cutOff).toBe(true), { timeout: 5_000 });
    expect(calls.at(-1)!.written).toBeLessThan(HUGE);
  });

  it('an error body is read to its first 64 KiB, the rest not at all', async () => {
    mode = 'error';
    const answer = await chat();
    expect(answer.status).toBeGreaterThanOrEqual(500);
    await vi.waitFor(() => expect(calls.at(-1)!.cutOff).toBe(true), { timeout: 5_000 });
    expect(calls.at(-1)!.written).toBeLessThan(HUGE);
  });
});
