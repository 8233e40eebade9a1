import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin, bearer, createKey } from '../helpers/admin.js';

/**
 * Issue 34, "limits before bytes": a key's limits are applied on its request's headers, before
 * its body is read, and one key holds at most its share of the instance's body budget. The
 * issue's attack, scaled down: the cap is 8 MiB (256 MiB in production) and each slow body
 * declares 1 MiB (32 MiB), so eight of them fill the cap exactly as they did on main.
 */
const CAP = 8 * 1024 * 1024;
const DECLARED = CAP / 8;
const chat = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] };

interface SlowBody {
  socket: Socket;
  /** The raw answer, once the gateway has answered (or closed). */
  answer: Promise<string>;
}

/** A request whose head declares `DECLARED` bytes and whose body then trickles in, a byte at a time. */
function slowBody(gateway: TestGateway, path: string, secret: string, declared = DECLARED): Promise<SlowBody> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write([`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', `authorization: Bearer ${secret}`, 'content-type: application/json', `content-length: ${declared}`, '', '{'].join('\r\n'));
      let received = '';
      const answer = new Promise<string>((done) => {
        socket.on('data', (chunk) => {
          received += chunk.toString('latin1');
          if (received.includes('\r\n\r\n')) done(received);
        });
        socket.on('close', () => done(received));
        socket.on('error', () => done(received));
      });
      resolve({ socket, answer });
    });
    socket.on('error', reject);
  });
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);

/** Which of the slow bodies were answered within a moment (refused on their headers); the rest are still held. */
async function answeredSoon(bodies: SlowBody[]): Promise<number[]> {
  const pending = Symbol('pending');
  const settled = await Promise.all(bodies.map((b) => Promise.race([b.answer, new Promise<typeof pending>((r) => setTimeout(() => r(pending), 500))])));
  return settled.filter((s): s is string => s !== pending).map(statusOf);
}

describe('limits before bytes (issue 34)', () => {
  let gateway: TestGateway;
  const open: SlowBody[] = [];
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { maxBodyBytesInFlight: CAP } });
  });
  afterAll(async () => {
    for (const body of open) body.socket.destroy();
    await gateway.stop();
  });

  const attack = async (secret: string): Promise<SlowBody[]> => {
    const bodies = await Promise.all(Array.from({ length: 8 }, () => slowBody(gateway, '/v1/chat/completions', secret)));
    open.push(...bodies);
    // A byte a second, as the attacker sends it, while the probe tenant works.
    const drip = setInterval(() => bodies.forEach((b) => !b.socket.destroyed && b.socket.write(' ')), 1000);
    bodies.forEach((b) => b.socket.once('close', () => undefined));
    setTimeout(() => clearInterval(drip), 3000).unref();
    return bodies;
  };

  it("a key with rpm 1 and max_parallel 1 gets one slow body in; the rest are refused on their headers, and another tenant's chat answers", async () => {
    const attacker = await createKey(gateway, { rpm: 1, max_parallel_requests: 1 });
    const probe = await createKey(gateway, {});
    const bodies = await attack(attacker.key);
    const refused = await answeredSoon(bodies);
    expect(refused).toHaveLength(7);
    expect(refused.every((status) => status === 429)).toBe(true);
    expect(gateway.app.bodyBudget.bytesInFlight).toBe(DECLARED);
    for (let i = 0; i < 5; i++) expect((await call(gateway, 'POST', '/v1/chat/completions', chat, bearer(probe.key))).status).toBe(200);
    for (const body of bodies) body.socket.destroy();
    await expect.poll(() => gateway.app.bodyBudget.bytesInFlight).toBe(0);
    await expect.poll(() => gateway.app.admission.parallel.size).toBe(0);
  });

  it('a key without limits holds at most its share of the body budget (an eighth): past it that key gets 429, other tenants still get in', async () => {
    const attacker = await createKey(gateway, {});
    const probe = await createKey(gateway, {});
    const bodies = await attack(attacker.key);
    const refused = await answeredSoon(bodies);
    expect(refused).toHaveLength(7);
    expect(refused.every((status) => status === 429)).toBe(true);
    expect(gateway.app.bodyBudget.bytesInFlight).toBe(DECLARED);
    // The probe's own body is large too: it fits beside the attacker's.
    const big = { ...chat, metadata: { pad: 'x'.repeat(500_000) } };
    expect((await call(gateway, 'POST', '/v1/chat/completions', big, bearer(probe.key))).status).not.toBe(503);
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat, bearer(probe.key))).status).toBe(200);
    for (const body of bodies) body.socket.destroy();
    await expect.poll(() => gateway.app.bodyBudget.bytesInFlight).toBe(0);
  });

  it('a key with an rpm of its own sends at most that many bodies at once, and gets its places back', async () => {
    const limited = await createKey(gateway, { rpm: 2 });
    const bodies = await Promise.all([0, 1, 2].map(() => slowBody(gateway, '/v1/chat/completions', limited.key, 1000)));
    open.push(...bodies);
    const refused = await answeredSoon(bodies);
    expect(refused).toEqual([429]);
    const answered = await Promise.all(bodies.map((b) => Promise.race([b.answer, new Promise<undefined>((r) => setTimeout(() => r(undefined), 50))])));
    const third = bodies[answered.findIndex((a) => a !== undefined)]!;
    expect(await third.answer).toContain('request bodies');
    // One of the two held bodies arrives in full (an invalid one, refused 400): its place is free again.
    const held = bodies.filter((b) => b !== third);
    held[0]!.socket.write(' '.repeat(999));
    expect(statusOf(await held[0]!.answer)).toBe(400);
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat, bearer(limited.key))).status).toBe(200);
    held[1]!.socket.destroy();
  });

  it('a key whose budget is spent is refused before its body is read', async () => {
    const spender = await createKey(gateway, { budget_usd: 0 });
    const body = await slowBody(gateway, '/v1/chat/completions', spender.key);
    open.push(body);
    // Answered on its headers: nothing more of the body is ever sent.
    const raw = await body.answer;
    expect(statusOf(raw)).toBe(429);
    expect(raw).toContain('insufficient_quota');
  });

  it("once a key's rpm for a model is refused, its next bodies for that model are refused unparsed until the window ends; other models and keys are parsed as before", async () => {
    const limited = await createKey(gateway, { rpm: 1 });
    const other = await createKey(gateway, { rpm: 1 });
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat, bearer(limited.key))).status).toBe(200);
    // The first refusal is judged by the counters, after the parse.
    const counted = await call(gateway, 'POST', '/v1/chat/completions', chat, bearer(limited.key));
    expect(counted.status).toBe(429);
    // Malformed after its model: a parse would answer 400; the remembered window answers first.
    const malformed = '{"model":"delta-4.1","messages":[{"role":"user","content":"hi"}';
    const unparsed = await call(gateway, 'POST', '/v1/chat/completions', malformed, bearer(limited.key));
    expect(unparsed.status).toBe(429);
    expect(unparsed.json.error.message).toContain("for model 'delta-4.1'");
    expect(Number(unparsed.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another model of the same key, and the same model for another key: parsed, so 400.
    expect((await call(gateway, 'POST', '/v1/chat/completions', malformed.replace('delta-4.1', 'beta-seed-1-6-lite-251015'), bearer(limited.key))).status).toBe(400);
    expect((await call(gateway, 'POST', '/v1/chat/completions', malformed, bearer(other.key))).status).toBe(400);
    // A raised limit forgets what was refused under the old one: the counters admit the next request.
    expect((await admin(gateway, 'PATCH', `/keys/${limited.id}`, { rpm: 5 })).status).toBe(200);
    await expect.poll(async () => (await call(gateway, 'POST', '/v1/chat/completions', chat, bearer(limited.key))).status).toBe(200);
  });
});
