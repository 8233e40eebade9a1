import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { startSharedCacheInstances, type SharedCacheInstances, type SharedCacheStore } from '../../helpers/shared-cache-instances.js';

const AUTH = { authorization: `Bearer ${TEST_KEY}` };
const UPSTREAM = 'simulator-openai';
/** The fill lease's bound: how long a miss waits for the instance filling the entry. */
const FILL_WAIT_S = 2;
const ask = (content: string, stream = false) => ({ model: 'delta-4.1', messages: [{ role: 'user', content }], ...(stream ? { stream: true } : {}) });

const stores: SharedCacheStore[] = ['PostgreSQL', 'Redis'];

/**
 * Identical misses on two instances that share the store go upstream once (issue 32): the first
 * miss across both claims the entry's fill lease; the other instance waits for its entry. Each
 * instance has its own simulator (a real HTTP server counting calls); the leader's streams slowly.
 */
describe.each(stores)('response cache miss coalescing across two instances on %s (issue 32)', (store) => {
  let instances: SharedCacheInstances;
  let first: TestGateway;
  let second: TestGateway;
  const upstream = (gateway: TestGateway) => gateway.deps.simulators.get(UPSTREAM)!;
  const upstreamCalls = () => upstream(first).requests.length + upstream(second).requests.length;

  beforeAll(async () => {
    instances = await startSharedCacheInstances(store, { cache: { enabled: true, redis_prefix: `test:fill:${randomUUID()}:`, fill_wait_seconds: FILL_WAIT_S } });
    ({ first, second } = instances);
    // Warm both instances (pool connections, the simulator's module): the timings below are tight.
    for (const gateway of [first, second]) await call(gateway, 'POST', '/v1/chat/completions', ask(`warm ${randomUUID()}`, true), AUTH);
  });
  afterAll(() => instances?.stop());

  it('six identical requests split across both instances reach the upstream once and all get its answer', async () => {
    upstream(first).setOptions({ first_token_delay_ms: 800 });
    const before = upstreamCalls();
    const leader = call(first, 'POST', '/v1/chat/completions', ask('asked everywhere at once', true), AUTH);
    // The leader has missed and holds the lease before the others arrive.
    await new Promise((r) => setTimeout(r, 300));
    const others = await Promise.all([
      call(first, 'POST', '/v1/chat/completions', ask('asked everywhere at once'), AUTH),
      call(second, 'POST', '/v1/chat/completions', ask('asked everywhere at once'), AUTH),
      call(second, 'POST', '/v1/chat/completions', ask('asked everywhere at once'), AUTH),
      call(second, 'POST', '/v1/chat/completions', ask('asked everywhere at once', true), AUTH),
      call(first, 'POST', '/v1/chat/completions', ask('asked everywhere at once'), AUTH),
    ]);
    const led = await leader;
    expect(led.headers.get('x-cache')).toBe('MISS');
    expect(upstreamCalls() - before).toBe(1);
    expect(others.map((o) => o.headers.get('x-cache'))).toEqual(['HIT', 'HIT', 'HIT', 'HIT', 'HIT']);
    const streamedText = led.text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
    for (const json of [others[0]!, others[1]!, others[2]!, others[4]!]) expect(json.json.choices[0].message.content).toBe(streamedText);
    expect(others[3]!.text).toBe(led.text);
    // The second instance's first miss waited for the first instance's entry; its others for it.
    expect(second.deps.responseCache.counts.coalesced).toBeGreaterThanOrEqual(3);
    expect(second.deps.responseCache.misses.inFlight).toBe(0);
  });

  it('when the leader stores nothing (its stream is cut), the other instance goes upstream itself at once', async () => {
    upstream(first).setOptions({ first_token_delay_ms: 800, cut_stream_after: 1 });
    upstream(second).setOptions({});
    const beforeSecond = upstream(second).requests.length;
    const leader = call(first, 'POST', '/v1/chat/completions', ask('the leader fails', true), AUTH);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const followers = await Promise.all([
      call(second, 'POST', '/v1/chat/completions', ask('the leader fails', true), AUTH),
      call(second, 'POST', '/v1/chat/completions', ask('the leader fails'), AUTH),
    ]);
    await leader;
    // Well before the lease's bound: the leader let go of it when its stream was cut.
    expect(Date.now() - started).toBeLessThan(FILL_WAIT_S * 1000);
    expect(followers[0]!.status).toBe(200);
    expect(followers[0]!.text).toContain('data: [DONE]');
    expect(followers[1]!.json.choices[0].message.content.length).toBeGreaterThan(0);
    expect(upstream(second).requests.length - beforeSecond).toBe(1);
    upstream(first).setOptions({});
  });

  it('a leader that hangs (or crashed) holds the other instance back no longer than the lease bound', async () => {
    upstream(first).setOptions({ first_token_delay_ms: FILL_WAIT_S * 1000 + 1500 });
    const beforeSecond = upstream(second).requests.length;
    const leader = call(first, 'POST', '/v1/chat/completions', ask('the leader hangs', true), AUTH);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const follower = await call(second, 'POST', '/v1/chat/completions', ask('the leader hangs'), AUTH);
    const waited = Date.now() - started;
    expect(follower.headers.get('x-cache')).toBe('MISS');
    expect(upstream(second).requests.length - beforeSecond).toBe(1);
    expect(waited).toBeGreaterThan(FILL_WAIT_S * 1000 - 500);
    expect(waited).toBeLessThan(FILL_WAIT_S * 1000 + 1000);
    await leader;
    upstream(first).setOptions({});
  });
});
