import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const AUTH = { authorization: `Bearer ${TEST_KEY}` };
const UPSTREAM = 'simulator-openai';

/** Concurrent identical misses go upstream once per instance (issue 32). */
describe('response cache miss coalescing (issue 32)', () => {
  let gateway: TestGateway;
  const upstream = () => gateway.deps.simulators.get(UPSTREAM)!;

  beforeAll(async () => {
    gateway = await startTestGateway({ file: { cache: { enabled: true } } });
    // A slow first token, so the identical requests below are all in flight together.
    upstream().setOptions({ first_token_delay_ms: 400 });
  });
  afterAll(() => gateway.stop());

  it('five identical requests at once, streamed and not, make one upstream call; the others are served its answer', async () => {
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'everyone asks this at once' }] };
    const before = upstream().requests.length;
    const leader = call(gateway, 'POST', '/v1/chat/completions', { ...body, stream: true }, AUTH);
    // The leader's lookup has missed before the others arrive.
    await new Promise((r) => setTimeout(r, 100));
    const others = await Promise.all([
      call(gateway, 'POST', '/v1/chat/completions', { ...body, stream: true }, AUTH),
      call(gateway, 'POST', '/v1/chat/completions', { ...body, stream: true }, AUTH),
      call(gateway, 'POST', '/v1/chat/completions', body, AUTH),
      call(gateway, 'POST', '/v1/chat/completions', body, AUTH),
    ]);
    const first = await leader;
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(upstream().requests.length - before).toBe(1);
    for (const other of others) expect(other.headers.get('x-cache')).toBe('HIT');
    // The streamed waiters get the leader's stream as it was sent; the JSON ones the same text.
    expect(others[0]!.text).toBe(first.text);
    expect(others[1]!.text).toBe(first.text);
    const streamedText = first.text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
    expect(others[2]!.json.choices[0].message.content).toBe(streamedText);
    expect(others[3]!.text).toBe(others[2]!.text);
    expect(gateway.deps.responseCache.counts.coalesced).toBeGreaterThanOrEqual(4);
    expect(gateway.deps.responseCache.misses.inFlight).toBe(0);
  });

  it('different questions, and no-store requests, are not held back by a miss in flight', async () => {
    const before = upstream().requests.length;
    const answers = await Promise.all([
      call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'question one' }], stream: true }, AUTH),
      call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'question two' }], stream: true }, AUTH),
      call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'question one' }], stream: true }, { ...AUTH, 'cache-control': 'no-store' }),
    ]);
    expect(answers.map((a) => a.headers.get('x-cache'))).toEqual(['MISS', 'MISS', 'BYPASS']);
    expect(upstream().requests.length - before).toBe(3);
  });

  it('when the first miss fails (its stream is cut), the waiting ones go upstream themselves', async () => {
    upstream().setOptions({ first_token_delay_ms: 400, cut_stream_after: 1 });
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'the first one fails' }], stream: true };
    const before = upstream().requests.length;
    const leader = call(gateway, 'POST', '/v1/chat/completions', body, AUTH);
    await new Promise((r) => setTimeout(r, 100));
    const waiters = await Promise.all([call(gateway, 'POST', '/v1/chat/completions', body, AUTH), call(gateway, 'POST', '/v1/chat/completions', body, AUTH)]);
    await leader;
    expect(waiters.map((w) => w.headers.get('x-cache'))).toEqual(['MISS', 'MISS']);
    expect(upstream().requests.length - before).toBe(3);
    expect(gateway.deps.responseCache.misses.inFlight).toBe(0);
  });
});
