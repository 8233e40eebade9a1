import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, signInWithAdminToken, type ConsoleSession } from '../../helpers/console.js';

const chat = (gateway: TestGateway, secret: string, model = 'delta-4.1') =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(secret));

describe('console API: a user\'s own keys (issue 12)', () => {
  let gateway: TestGateway;
  let ann: { session: ConsoleSession; id: string };
  let bob: { session: ConsoleSession; id: string };
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
    ann = await inviteUser(gateway, { name: 'Ann' });
    bob = await inviteUser(gateway, { name: 'Bob' });
  });
  afterAll(() => gateway.stop());

  const createKey = async (session: ConsoleSession, body: Record<string, unknown> = {}) => {
    const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'mine', ...body }, { session });
    expect(created.status, created.text).toBe(201);
    return created.json;
  };

  it('every console route answers 401 without a session (general envelope)', async () => {
    const routes: Array<[string, string]> = [
      ['GET', '/console/api/session'], ['DELETE', '/console/api/session'], ['POST', '/console/api/session/revoke-all'],
      ['GET', '/console/api/keys'], ['POST', '/console/api/keys'], ['GET', '/console/api/keys/key_x'], ['PATCH', '/console/api/keys/key_x'],
      ['DELETE', '/console/api/keys/key_x'], ['POST', '/console/api/keys/key_x/regenerate'],
      ['GET', '/console/api/usage'], ['GET', '/console/api/usage.csv'], ['GET', '/console/api/models'],
    ];
    for (const [method, path] of routes) {
      const body = method === 'POST' || method === 'PATCH' ? { name: 'x' } : undefined;
      const refused = await consoleCall(gateway, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(401);
      assertEnvelope('general', refused.json);
      // An API key is not a console session either.
      const withKey = await consoleCall(gateway, method, path, body, { headers: bearer('sk-gw-test-key-0123456789abcdef') });
      expect(withKey.status, `${method} ${path} with an API key`).toBe(401);
    }
  });

  it('every state-changing console route answers 403 csrf_failed with the cookie but no or a wrong CSRF token, and changes nothing', async () => {
    const key = await createKey(ann.session, { name: 'csrf-target' });
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/console/api/keys', { name: 'sneaky' }],
      ['PATCH', `/console/api/keys/${key.id}`, { disabled: true }],
      ['DELETE', `/console/api/keys/${key.id}`, undefined],
      ['POST', `/console/api/keys/${key.id}/regenerate`, undefined],
      ['POST', '/console/api/session/revoke-all', undefined],
      ['DELETE', '/console/api/session', undefined],
    ];
    for (const [method, path, body] of routes) {
      for (const csrf of [false as const, 'not-the-token', bob.session.csrf]) {
        const refused = await consoleCall(gateway, method, path, body, { session: ann.session, csrf });
        expect(refused.status, `${method} ${path} csrf=${String(csrf)}`).toBe(403);
        assertEnvelope('general', refused.json);
        expect(refused.json.error.code).toBe('csrf_failed');
      }
    }
    const list = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: ann.session });
    expect(list.json.data.map((k: { name: string }) => k.name)).not.toContain('sneaky');
    expect(list.json.data.find((k: { id: string }) => k.id === key.id)).toMatchObject({ status: 'active', prefix: key.prefix });
    expect((await chat(gateway, key.key)).status).toBe(200);
    expect((await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session: ann.session })).status).toBe(200);
  });

  it('a user creates a key owned by them; it works with the openai SDK, and the list shows owner, last use and this month\'s spend', async () => {
    const created = await createKey(ann.session, { name: 'sdk', models: ['delta-4.1'], rpm: 50 });
    expect(created).toMatchObject({ object: 'api_key', name: 'sdk', owner: ann.id, owner_email: expect.stringContaining('@example.org'), status: 'active', last_used_at: null, spent_month_usd: 0 });
    expect(created.key).toMatch(/^sk-gw-/);

    const client = new OpenAI({ apiKey: created.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hello from the console' }] });
    expect(completion.choices[0]!.message.content).toContain('Hello from the console');
    await expect(client.chat.completions.create({ model: 'epsilon-4.7', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403 });

    await expect
      .poll(async () => (await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: ann.session })).json.data.find((k: { id: string }) => k.id === created.id))
      .toMatchObject({ last_used_at: expect.any(String), spent_month_usd: expect.any(Number) });
    const listed = (await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: ann.session })).json.data.find((k: { id: string }) => k.id === created.id);
    expect(Date.parse(listed.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(listed.spent_month_usd).toBeGreaterThan(0);
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  it('a user never sees or touches another user\'s keys: absent from the list, 404 on every route (like a key that does not exist)', async () => {
    const bobs = await createKey(bob.session, { name: 'bobs' });
    const annList = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: ann.session });
    expect(annList.json.data.every((k: { owner: string }) => k.owner === ann.id)).toBe(true);
    expect(annList.json.data.map((k: { id: string }) => k.id)).not.toContain(bobs.id);
    for (const [method, path, body] of [
      ['GET', `/console/api/keys/${bobs.id}`, undefined],
      ['PATCH', `/console/api/keys/${bobs.id}`, { disabled: true }],
      ['DELETE', `/console/api/keys/${bobs.id}`, undefined],
      ['POST', `/console/api/keys/${bobs.id}/regenerate`, undefined],
    ] as Array<[string, string, unknown]>) {
      const refused = await consoleCall(gateway, method, path, body, { session: ann.session });
      expect(refused.status, `${method} ${path}`).toBe(404);
      assertEnvelope('general', refused.json);
      const missing = await consoleCall(gateway, method, path.replace(bobs.id, 'key_doesnotexist'), body, { session: ann.session });
      expect(missing.status).toBe(404);
      expect(missing.json.error.code).toBe(refused.json.error.code);
    }
    // Bob's key is untouched and the operator's (bootstrap) keys are not Ann's either.
    expect((await chat(gateway, bobs.key)).status).toBe(200);
    expect(annList.json.data.map((k: { name: string }) => k.name)).not.toContain('bootstrap');
  });

  it('disable and re-enable: 401 on /v1/chat/completions while disabled', async () => {
    const key = await createKey(ann.session, { name: 'toggle' });
    const disabled = await consoleCall(gateway, 'PATCH', `/console/api/keys/${key.id}`, { disabled: true, name: 'toggled' }, { session: ann.session });
    expect(disabled.status).toBe(200);
    expect(disabled.json).toMatchObject({ status: 'disabled', name: 'toggled', owner: ann.id });
    expect((await chat(gateway, key.key)).status).toBe(401);
    await consoleCall(gateway, 'PATCH', `/console/api/keys/${key.id}`, { disabled: false }, { session: ann.session });
    expect((await chat(gateway, key.key)).status).toBe(200);
  });

  it('regenerate: the new secret works, the old one is refused at once (even right after being used and cached)', async () => {
    const key = await createKey(ann.session, { name: 'regen' });
    expect((await chat(gateway, key.key)).status).toBe(200);
    const regenerated = await consoleCall(gateway, 'POST', `/console/api/keys/${key.id}/regenerate`, undefined, { session: ann.session });
    expect(regenerated.status).toBe(200);
    expect(regenerated.json).toMatchObject({ id: key.id, name: 'regen', owner: ann.id, key: expect.stringMatching(/^sk-gw-/) });
    expect(regenerated.json.key).not.toBe(key.key);
    expect(regenerated.json.prefix).toBe(regenerated.json.key.slice(0, 12));
    const old = await chat(gateway, key.key);
    expect(old.status).toBe(401);
    assertEnvelope('chat', old.json);
    expect((await chat(gateway, regenerated.json.key)).status).toBe(200);
  });

  it('revoke: 401 on /v1/chat/completions; a revoked key cannot be changed or regenerated', async () => {
    const key = await createKey(ann.session, { name: 'doomed' });
    expect((await chat(gateway, key.key)).status).toBe(200);
    const revoked = await consoleCall(gateway, 'DELETE', `/console/api/keys/${key.id}`, undefined, { session: ann.session });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    const refused = await chat(gateway, key.key);
    expect(refused.status).toBe(401);
    expect(refused.json.error.message).toContain('revoked');
    expect((await consoleCall(gateway, 'PATCH', `/console/api/keys/${key.id}`, { disabled: false }, { session: ann.session })).status).toBe(400);
    expect((await consoleCall(gateway, 'POST', `/console/api/keys/${key.id}/regenerate`, undefined, { session: ann.session })).status).toBe(400);
  });

  it('bad bodies are 400s naming the field', async () => {
    for (const [body, field] of [[{}, 'name'], [{ name: 'x', rmp: 5 }, 'rmp'], [{ name: 'x', models: ['nope'] }, 'models[0]'], [{ name: 'x', owner: bob.id }, 'owner']] as const) {
      const refused = await consoleCall(gateway, 'POST', '/console/api/keys', body, { session: ann.session });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.error.message).toContain(field);
    }
  });
});

describe('console API: keys within the user\'s allowance (issue 12)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
  });
  afterAll(() => gateway.stop());

  it('models and families outside the allowance are 403 naming the field; omitted, the key gets the allowance', async () => {
    const { session } = await inviteUser(gateway, { models: ['delta-4.1', 'epsilon-4.7'], families: ['chat-completions'], rpm: 20 });
    const outside = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'k', models: ['delta-4.1', 'alpha-sonnet-4-5-20250929'] }, { session });
    expect(outside.status).toBe(403);
    assertEnvelope('general', outside.json);
    expect(outside.json.error).toMatchObject({ code: 'allowance_exceeded' });
    expect(outside.json.error.message).toMatch(/^'models'.*alpha-sonnet-4-5-20250929/);
    const all = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'k', models: null }, { session });
    expect(all.status).toBe(403);
    const family = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'k', endpoints: ['messages'] }, { session });
    expect(family.status).toBe(403);
    expect(family.json.error.message).toMatch(/^'endpoints'/);
    const fast = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'k', rpm: 21 }, { session });
    expect(fast.status).toBe(403);
    expect(fast.json.error.message).toMatch(/^'rpm'/);

    const fitted = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'k' }, { session });
    expect(fitted.status).toBe(201);
    expect(fitted.json).toMatchObject({ models: ['delta-4.1', 'epsilon-4.7'], endpoints: ['chat-completions'], rpm: 20 });
    const widen = await consoleCall(gateway, 'PATCH', `/console/api/keys/${fitted.json.id}`, { rpm: null }, { session });
    expect(widen.status).toBe(403);
    const narrow = await consoleCall(gateway, 'PATCH', `/console/api/keys/${fitted.json.id}`, { models: ['delta-4.1'], rpm: 5 }, { session });
    expect(narrow.status).toBe(200);
    expect(narrow.json).toMatchObject({ models: ['delta-4.1'], rpm: 5 });

    const models = await consoleCall(gateway, 'GET', '/console/api/models', undefined, { session });
    expect(models.status).toBe(200);
    expect(models.json.data.map((m: { id: string }) => m.id).sort()).toEqual(['delta-4.1', 'epsilon-4.7']);
    expect(models.json.data.find((m: { id: string }) => m.id === 'delta-4.1')).toMatchObject({ families: ['chat-completions'], price: { prompt_per_1m: 2, completion_per_1m: 8 } });
  });

  it('with a user budget, each key needs a budget and the live keys\' budgets plus revoked keys\' spend stay within it', async () => {
    const { session } = await inviteUser(gateway, { budget_usd: 10 });
    const none = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'k' }, { session });
    expect(none.status).toBe(403);
    expect(none.json.error.message).toMatch(/^'budget_usd'/);
    const first = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'a', budget_usd: 6 }, { session });
    expect(first.status).toBe(201);
    const tooMuch = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'b', budget_usd: 4.5 }, { session });
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.json.error.message).toContain('at most 4');
    expect((await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'b', budget_usd: 4 }, { session })).status).toBe(201);
    // Raising the first key's budget is measured against the others', not its own.
    expect((await consoleCall(gateway, 'PATCH', `/console/api/keys/${first.json.id}`, { budget_usd: 7 }, { session })).status).toBe(403);
    expect((await consoleCall(gateway, 'PATCH', `/console/api/keys/${first.json.id}`, { budget_usd: 5 }, { session })).status).toBe(200);
    // A revoked key's budget is free again, less what it spent.
    expect((await chat(gateway, first.json.key)).status).toBe(200);
    await consoleCall(gateway, 'DELETE', `/console/api/keys/${first.json.id}`, undefined, { session });
    const refill = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'c', budget_usd: 6 }, { session });
    expect(refill.status).toBe(403);
    expect((await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'c', budget_usd: 5.9 }, { session })).status).toBe(201);
  });

  it('the operator (admin-token session) has no allowance and owns the keys the admin API, CLI and bootstrap made', async () => {
    const operator = await signInWithAdminToken(gateway);
    const list = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: operator });
    expect(list.json.data.find((k: { name: string }) => k.name === 'bootstrap')).toMatchObject({ owner: 'operator' });
    const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'ops', models: null, rpm: 100000 }, { session: operator });
    expect(created.status).toBe(201);
    expect(created.json.owner).toBe('operator');
    const adminView = await admin(gateway, 'GET', `/keys/${created.json.id}`);
    expect(adminView.json).toMatchObject({ owner: 'operator', owner_email: null });
  });
});
