import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, sessionFrom } from '../../helpers/console.js';

const chat = (gateway: TestGateway, secret: string) =>
  call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(secret));

describe('admin API: users, invitations and key owners (issue 12)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('lists the built-in operator; keys made before any user (bootstrap) belong to it and still work', async () => {
    const users = await admin(gateway, 'GET', '/users');
    expect(users.status).toBe(200);
    expect(users.json.data[0]).toMatchObject({ id: 'operator', role: 'operator', email: null, disabled: false });
    const keys = await admin(gateway, 'GET', '/keys');
    expect(keys.json.data.find((k: { name: string }) => k.name === 'bootstrap')).toMatchObject({ owner: 'operator', owner_email: null });
    expect((await chat(gateway, TEST_KEY)).status).toBe(200);
  });

  it('invites a user (201 with a one-time link); the same email again is 409; bad bodies are 400', async () => {
    const created = await admin(gateway, 'POST', '/users', { email: 'Carol@Example.org', name: 'Carol', budget_usd: 20, models: ['delta-4.1'], families: ['chat-completions'], rpm: 10 });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      user: { id: expect.stringMatching(/^usr_/), email: 'carol@example.org', name: 'Carol', role: 'user', budget_usd: 20, rpm: 10, tpm: null, models: ['delta-4.1'], families: ['chat-completions'], disabled: false, has_password: false },
      invite_token: expect.any(String),
      invite_expires_at: expect.any(String),
    });
    expect(Date.parse(created.json.invite_expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect(created.json.user).not.toHaveProperty('password_hash');
    const duplicate = await admin(gateway, 'POST', '/users', { email: 'carol@example.org', name: 'Carol again' });
    expect(duplicate.status).toBe(409);
    assertEnvelope('general', duplicate.json);
    for (const body of [{ name: 'no email' }, { email: 'not-an-email', name: 'x' }, { email: 'a@b.c', name: 'x', role: 'root' }, { email: 'a@b.c', name: 'x', models: ['nope'] }, { email: 'a@b.c', name: 'x', extra: 1 }]) {
      const bad = await admin(gateway, 'POST', '/users', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      assertEnvelope('general', bad.json);
    }
    // A fresh invitation replaces the first one.
    const again = await admin(gateway, 'POST', `/users/${created.json.user.id}/invite`);
    expect(again.status).toBe(201);
    const stale = await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: created.json.invite_token, password: 'a long enough password' });
    expect(stale.status).toBe(400);
    sessionFrom(await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: again.json.invite_token, password: 'a long enough password' }));
    expect((await admin(gateway, 'GET', `/users/${created.json.user.id}`)).json.has_password).toBe(true);
  });

  it('changes a user; unknown users are 404; the built-in operator cannot be demoted, disabled or removed', async () => {
    const { id } = await inviteUser(gateway);
    const patched = await admin(gateway, 'PATCH', `/users/${id}`, { name: 'Renamed', budget_usd: null, tpm: 5000, role: 'operator' });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ name: 'Renamed', budget_usd: null, tpm: 5000, role: 'operator' });
    for (const [method, path] of [['GET', '/users/usr_nope'], ['PATCH', '/users/usr_nope'], ['DELETE', '/users/usr_nope'], ['POST', '/users/usr_nope/invite']]) {
      const missing = await admin(gateway, method!, path!, method === 'PATCH' ? { name: 'x' } : undefined);
      expect(missing.status, `${method} ${path}`).toBe(404);
    }
    expect((await admin(gateway, 'PATCH', '/users/operator', { role: 'user' })).status).toBe(400);
    expect((await admin(gateway, 'PATCH', '/users/operator', { disabled: true })).status).toBe(400);
    expect((await admin(gateway, 'DELETE', '/users/operator')).status).toBe(400);
    expect((await admin(gateway, 'POST', '/users/operator/invite')).status).toBe(400);
  });

  it('the admin API makes keys for a user (owner); an unknown owner is 400; the owner sees the key in the console', async () => {
    const person = await inviteUser(gateway);
    const created = await admin(gateway, 'POST', '/keys', { name: 'for-them', owner: person.id });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ owner: person.id, owner_email: person.email });
    const theirs = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: person.session });
    expect(theirs.json.data.map((k: { id: string }) => k.id)).toEqual([created.json.id]);
    const unknown = await admin(gateway, 'POST', '/keys', { name: 'x', owner: 'usr_nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toContain('owner');
  });

  it('regenerates any key: 200 with the new secret; the old one is 401 at once; a revoked key cannot be regenerated', async () => {
    const created = await admin(gateway, 'POST', '/keys', { name: 'rotate-me' });
    expect((await chat(gateway, created.json.key)).status).toBe(200);
    const rotated = await admin(gateway, 'POST', `/keys/${created.json.id}/regenerate`);
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ id: created.json.id, key: expect.stringMatching(/^sk-gw-/), status: 'active' });
    expect((await chat(gateway, created.json.key)).status).toBe(401);
    expect((await chat(gateway, rotated.json.key)).status).toBe(200);
    await admin(gateway, 'DELETE', `/keys/${created.json.id}`);
    expect((await admin(gateway, 'POST', `/keys/${created.json.id}/regenerate`)).status).toBe(400);
    expect((await admin(gateway, 'POST', '/keys/key_nope/regenerate')).status).toBe(404);
  });

  it("disabling a user refuses their keys at once (even just looked up and cached), and re-enabling restores them", async () => {
    const person = await inviteUser(gateway);
    const key = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'paused-with-owner' }, { session: person.session });
    expect((await chat(gateway, key.json.key)).status).toBe(200);
    await admin(gateway, 'PATCH', `/users/${person.id}`, { disabled: true });
    const refused = await chat(gateway, key.json.key);
    expect(refused.status).toBe(401);
    expect(refused.json.error.message).toContain('disabled');
    // The key's own state is untouched: re-enabling the user is all it takes.
    expect((await admin(gateway, 'GET', `/keys/${key.json.id}`)).json.status).toBe('active');
    await admin(gateway, 'PATCH', `/users/${person.id}`, { disabled: false });
    expect((await chat(gateway, key.json.key)).status).toBe(200);
  });

  it('removing a user revokes their keys (401 on /v1) and ends their sessions; the keys stay listed as revoked', async () => {
    const person = await inviteUser(gateway);
    const key = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'theirs' }, { session: person.session });
    expect((await chat(gateway, key.json.key)).status).toBe(200);
    expect((await admin(gateway, 'DELETE', `/users/${person.id}`)).status).toBe(204);
    expect((await chat(gateway, key.json.key)).status).toBe(401);
    expect((await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: person.session })).status).toBe(401);
    expect((await admin(gateway, 'GET', `/keys/${key.json.id}`)).json).toMatchObject({ status: 'revoked', owner: person.id, owner_email: null });
    expect((await admin(gateway, 'GET', `/users/${person.id}`)).status).toBe(404);
    const signIn = await consoleCall(gateway, 'POST', '/console/api/session', { email: person.email, password: person.password });
    expect(signIn.status).toBe(401);
  });

  it('every new route is in /openapi.json', async () => {
    const openapi = await call(gateway, 'GET', '/openapi.json', undefined, {});
    const paths = openapi.json.paths;
    for (const [path, methods] of Object.entries({
      '/admin/api/users': ['get', 'post'],
      '/admin/api/users/{id}': ['get', 'patch', 'delete'],
      '/admin/api/users/{id}/invite': ['post'],
      '/admin/api/keys/{id}/regenerate': ['post'],
      '/admin/api/usage.csv': ['get'],
      '/console/api/session': ['get', 'post', 'delete'],
      '/console/api/session/revoke-all': ['post'],
      '/console/api/invite/accept': ['post'],
      '/console/api/keys': ['get', 'post'],
      '/console/api/keys/{id}': ['get', 'patch', 'delete'],
      '/console/api/keys/{id}/regenerate': ['post'],
      '/console/api/usage': ['get'],
      '/console/api/usage.csv': ['get'],
      '/console/api/models': ['get'],
    })) {
      expect(Object.keys(paths[path] ?? {}), path).toEqual(expect.arrayContaining(methods));
    }
    expect(paths['/console/api/keys'].post.tags).toContain('console');
    expect(openapi.json.components.securitySchemes.consoleSession).toEqual({ type: 'apiKey', in: 'cookie', name: 'gw_session' });
  });
});
