import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 13 item 6: slow and partial bodies cannot hold sockets and memory, and one key cannot
 * have more requests in flight than its `max_parallel_requests`.
 */
const chat = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] };

/** A raw HTTP/1.1 request whose head is sent; the body is up to the test. */
function openRequest(gateway: TestGateway, path: string, headers: Record<string, string>): Promise<{ socket: Socket; answer: Promise<string> }> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      const head = [`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
      socket.write(head);
      let received = '';
      const answer = new Promise<string>((done) => {
        socket.on('data', (chunk) => (received += chunk.toString('latin1')));
        socket.on('close', () => done(received));
        socket.on('error', () => done(received));
      });
      resolve({ socket, answer });
    });
    socket.on('error', reject);
  });
}

describe('request bodies: timeout and bytes in flight', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // One key fills the whole cap here; a key's own share is limits-before-bytes.test.ts.
    gateway = await startTestGateway({ env: { requestTimeoutMs: 400, maxBodyBytesInFlight: 1_000_000, maxBodyBytesPerKey: 1_000_000 } });
  });
  afterAll(() => gateway.stop());

  it('a chunked body that never ends is cut with 408 after the request timeout', async () => {
    const { socket, answer } = await openRequest(gateway, '/v1/chat/completions', {
      authorization: 'Bearer sk-gw-test-key-0123456789abcdef', 'content-type': 'application/json', 'transfer-encoding': 'chunked',
    });
    socket.write('5\r\n{"mod\r\n');
    const started = Date.now();
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"code":"request_timeout"');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('past the cap, a new body is refused at once with 503 and Retry-After; room comes back when the holders leave', async () => {
    const auth = { authorization: 'Bearer sk-gw-test-key-0123456789abcdef', 'content-type': 'application/json' };
    // Two clients each declare 450 kB and send a little of it: 900 kB of the 1 MB cap is taken.
    const holders = await Promise.all([0, 1].map(() => openRequest(gateway, '/v1/chat/completions', { ...auth, 'content-length': '450000' })));
    for (const { socket } of holders) socket.write('{"model":"delta-4.1","messages":[');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gateway.app.bodyBudget.bytesInFlight).toBe(900_000);

    const third = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ ...chat, pad: 'x'.repeat(200_000) }) });
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('overloaded');

    for (const { socket } of holders) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gateway.app.bodyBudget.bytesInFlight).toBe(0);
    const later = await call(gateway, 'POST', '/v1/chat/completions', chat);
    expect(later.status).toBe(200);
  });

  it('a chunked body is counted as it arrives and refused once it passes the cap', async () => {
    const { socket, answer } = await openRequest(gateway, '/v1/chat/completions', {
      authorization: 'Bearer sk-gw-test-key-0123456789abcdef', 'content-type': 'application/json', 'transfer-encoding': 'chunked',
    });
    const piece = 'x'.repeat(100_000);
    for (let i = 0; i < 12; i++) socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toMatch(/retry-after: 1/i);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gateway.app.bodyBudget.bytesInFlight).toBe(0);
  });
});

describe('max_parallel_requests', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { simulator: { first_token_delay_ms: 300 } } });
  });
  afterAll(() => gateway.stop());

  it('is set through the admin API, refuses a request past it with 429 and Retry-After, and gives slots back', async () => {
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const created = await call(gateway, 'POST', '/admin/api/keys', { name: 'two at once', max_parallel_requests: 2 }, admin);
    expect(created.status, created.text).toBe(201);
    expect(created.json.max_parallel_requests).toBe(2);
    const as = { authorization: `Bearer ${created.json.key}` };
    const answers = await Promise.all([0, 1, 2].map(() => call(gateway, 'POST', '/v1/chat/completions', chat, as)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json.error.message).toContain('max_parallel_requests');
    expect(gateway.app.admission.parallel.size).toBe(0);
    // Slots come back after streams and errors too.
    const stream = await call(gateway, 'POST', '/v1/chat/completions', { ...chat, stream: true }, as);
    expect(stream.status).toBe(200);
    const invalid = await call(gateway, 'POST', '/v1/chat/completions', { ...chat, temperature: 9 }, as);
    expect(invalid.status).toBe(400);
    expect(gateway.app.admission.parallel.size).toBe(0);
    const again = await Promise.all([0, 1].map(() => call(gateway, 'POST', '/v1/chat/completions', chat, as)));
    expect(again.map((a) => a.status)).toEqual([200, 200]);

    const bad = await call(gateway, 'POST', '/admin/api/keys', { name: 'x', max_parallel_requests: 0 }, admin);
    expect(bad.status).toBe(400);
  });
});
