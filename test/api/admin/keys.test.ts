import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';

const chat = (gateway: TestGateway, secret: string, model = 'delta-4.1') =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(secret));

describe('admin API: keys (issue 4)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: {
        tiers: { default: { default: { rpm: 1000 } }, gold: { 'delta-4.1': { rpm: 100, tpm: 100_000 }, default: { rpm: 50 } } },
        prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 }, 'zeta-1.0-r2v': { per_video_second: 0.1 } },
      },
    });
  });
  afterAll(() => gateway.stop());

  it('refuses calls without the admin token, with a wrong one, or with an API key (general envelope)', async () => {
    for (const headers of [{}, { authorization: 'Bearer gwadm-wrong' }, bearer('sk-gw-test-key-0123456789abcdef')]) {
      const response = await call(gateway, 'GET', '/admin/api/keys', undefined, headers);
      expect(response.status).toBe(401);
      assertEnvelope('general', response.json);
      expect(response.json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_admin_token' });
    }
  });

  it('creates a key: 201 with the secret once; the list and the key show only its prefix', async () => {
    const created = await admin(gateway, 'POST', '/keys', {
      name: 'ci', models: ['delta-4.1'], endpoints: ['chat-completions'], tier: 'gold', rpm: 10, tpm: 2000, budget_usd: 5, expires_at: '2099-01-01T00:00:00Z',
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^key_/), object: 'api_key', key: expect.stringMatching(/^sk-gw-/), name: 'ci', prefix: created.json.key.slice(0, 12),
      status: 'active', models: ['delta-4.1'], endpoints: ['chat-completions'], tier: 'gold', rpm: 10, tpm: 2000, max_parallel_requests: null, mcp: null, budget_usd: 5, cache_enabled: null, cache_ttl_seconds: null, cache_namespace: null, cache_mode: null,
      expires_at: '2099-01-01T00:00:00.000Z', disabled: false, created_at: expect.any(String), revoked_at: null,
      owner: 'operator', owner_email: null, last_used_at: null, spent_month_usd: 0,
    });
    expect((await chat(gateway, created.json.key)).status).toBe(200);

    const list = await admin(gateway, 'GET', '/keys');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.json.key);
    expect(list.text).not.toContain('secret');
    const listed = list.json.data.find((k: { id: string }) => k.id === created.json.id);
    expect(listed).toMatchObject({ prefix: created.json.prefix, name: 'ci' });
    expect(listed).not.toHaveProperty('key');

    // The request's usage event is recorded when its connection closes, just after the answer.
    await expect.poll(async () => (await admin(gateway, 'GET', `/keys/${created.json.id}`)).json.spent_usd).toBeGreaterThan(0);
    const one = await admin(gateway, 'GET', `/keys/${created.json.id}`);
    expect(one.json).not.toHaveProperty('key');
  });

  it('accepts expires_at as Unix seconds and answers 401 once a key has expired', async () => {
    const { key, view } = await createKey(gateway, { expires_at: Math.floor(Date.now() / 1000) + 3600 });
    expect(Date.parse(view.expires_at)).toBeGreaterThan(Date.now());
    expect((await chat(gateway, key)).status).toBe(200);
    const expired = await createKey(gateway, { expires_at: Math.floor(Date.now() / 1000) - 1 });
    expect(expired.view.status).toBe('expired');
    const refused = await chat(gateway, expired.key);
    expect(refused.status).toBe(401);
    assertEnvelope('chat', refused.json);
  });

  it.each([
    [{ models: ['beta-seed-2.0'] }, 'models[0]'],
    [{ models: ['beta-seed-*'] }, 'models[0]'],
    [{ endpoints: ['chat'] }, 'endpoints[0]'],
    [{ rpm: 0 }, 'rpm'],
    [{ tpm: 1.5 }, 'tpm'],
    [{ budget_usd: -1 }, 'budget_usd'],
    [{ rmp: 5 }, 'rmp'],
    [{ expires_at: 'next tuesday' }, 'expires_at'],
    [{ tier: 'platinum' }, 'tier'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const response = await admin(gateway, 'POST', '/keys', { name: 'bad', ...body });
    expect(response.status).toBe(400);
    assertEnvelope('general', response.json);
    expect(response.json.error.code).toBe('invalid_parameter');
    expect(response.json.error.message).toContain(field);
  });

  it('requires a name', async () => {
    const response = await admin(gateway, 'POST', '/keys', { rpm: 5 });
    expect(response.status).toBe(400);
    expect(response.json.error.message).toContain("'name' is required");
  });

  it('PATCH changes take effect at once: models, then disabled (401) and enabled again', async () => {
    const { id, key } = await createKey(gateway, {});
    expect((await chat(gateway, key)).status).toBe(200);
    const narrowed = await admin(gateway, 'PATCH', `/keys/${id}`, { models: ['epsilon-4.7'] });
    expect(narrowed.status).toBe(200);
    expect(narrowed.json.models).toEqual(['epsilon-4.7']);
    expect((await chat(gateway, key)).status).toBe(403);
    expect((await chat(gateway, key, 'epsilon-4.7')).status).toBe(200);

    const disabled = await admin(gateway, 'PATCH', `/keys/${id}`, { disabled: true });
    expect(disabled.json).toMatchObject({ disabled: true, status: 'disabled' });
    const refused = await chat(gateway, key, 'epsilon-4.7');
    expect(refused.status).toBe(401);
    expect(refused.json.error.message).toMatch(/disabled/);

    await admin(gateway, 'PATCH', `/keys/${id}`, { disabled: false, models: null });
    expect((await chat(gateway, key)).status).toBe(200);
  });

  it('PATCH a limit: it applies to the next request, counting the requests already made this minute', async () => {
    const { id, key } = await createKey(gateway, {});
    const first = await chat(gateway, key);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('1000');
    await admin(gateway, 'PATCH', `/keys/${id}`, { rpm: 2 });
    const second = await chat(gateway, key);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(second.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect((await chat(gateway, key)).status).toBe(429);
    await admin(gateway, 'PATCH', `/keys/${id}`, { rpm: null });
    expect((await chat(gateway, key)).status).toBe(200);
  });

  it('DELETE revokes: the key gets 401 at once, stays listed as revoked, and cannot be changed', async () => {
    const { id, key } = await createKey(gateway, {});
    expect((await chat(gateway, key)).status).toBe(200);
    const deleted = await admin(gateway, 'DELETE', `/keys/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ id, status: 'revoked', revoked_at: expect.any(String) });
    const refused = await chat(gateway, key);
    expect(refused.status).toBe(401);
    expect(refused.json.error.message).toMatch(/revoked/);
    expect((await admin(gateway, 'PATCH', `/keys/${id}`, { rpm: 5 })).status).toBe(400);
    expect((await admin(gateway, 'DELETE', `/keys/key_nope`)).status).toBe(404);
    expect((await admin(gateway, 'GET', `/keys/key_nope`)).json.error.code).toBe('not_found');
  });

  it('serves the configured tiers and prices, and documents the admin API in OpenAPI', async () => {
    const tiers = await admin(gateway, 'GET', '/tiers');
    expect(tiers.json).toEqual({
      object: 'tiers', default_tier: 'default',
      data: { default: { default: { rpm: 1000 } }, gold: { 'delta-4.1': { rpm: 100, tpm: 100_000 }, default: { rpm: 50 } } },
    });
    const prices = await admin(gateway, 'GET', '/prices');
    expect(prices.json).toEqual({
      object: 'prices', currency: 'USD',
      data: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 }, 'zeta-1.0-r2v': { per_video_second: 0.1 } },
    });
    const openapi = await call(gateway, 'GET', '/openapi.json', undefined, {});
    for (const path of ['/admin/api/keys', '/admin/api/keys/{id}', '/admin/api/usage', '/admin/api/tiers', '/admin/api/prices']) {
      expect(openapi.json.paths).toHaveProperty([path]);
    }
    expect(Object.keys(openapi.json.paths['/admin/api/keys/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
  });

  it('the gateway keys command and the admin API share one store', async () => {
    const { key } = await gateway.deps.keys.create({ name: 'from-cli-store' });
    const list = await admin(gateway, 'GET', '/keys');
    expect(list.json.data.map((k: { name: string }) => k.name)).toContain('from-cli-store');
    expect((await chat(gateway, key.prefix)).status).toBe(401);
  });
});
