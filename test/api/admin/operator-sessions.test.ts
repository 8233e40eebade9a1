import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, signIn, signInWithAdminToken, type ConsoleSession } from '../../helpers/console.js';

/** Every admin route, with a body where it takes one (ids need not exist: authentication comes first). */
const ADMIN_ROUTES: Array<[string, string, unknown]> = [
  ['GET', '/admin/api/keys', undefined],
  ['POST', '/admin/api/keys', { name: 'x' }],
  ['GET', '/admin/api/keys/key_x', undefined],
  ['PATCH', '/admin/api/keys/key_x', { name: 'y' }],
  ['DELETE', '/admin/api/keys/key_x', undefined],
  ['POST', '/admin/api/keys/key_x/regenerate', undefined],
  ['GET', '/admin/api/usage', undefined],
  ['GET', '/admin/api/usage.csv', undefined],
  ['GET', '/admin/api/tiers', undefined],
  ['GET', '/admin/api/prices', undefined],
  ['GET', '/admin/api/users', undefined],
  ['POST', '/admin/api/users', { email: 'z@example.org', name: 'Z' }],
  ['GET', '/admin/api/users/usr_x', undefined],
  ['PATCH', '/admin/api/users/usr_x', { name: 'Y' }],
  ['DELETE', '/admin/api/users/usr_x', undefined],
  ['POST', '/admin/api/users/usr_x/invite', undefined],
];
const WRITES = ADMIN_ROUTES.filter(([method]) => method !== 'GET');

describe('admin API with console sessions (issue 12)', () => {
  let gateway: TestGateway;
  let operator: ConsoleSession;
  let user: ConsoleSession;
  beforeAll(async () => {
    gateway = await startTestGateway();
    operator = await signInWithAdminToken(gateway);
    user = (await inviteUser(gateway)).session;
  });
  afterAll(() => gateway.stop());

  it('no credentials: 401 on every admin route', async () => {
    for (const [method, path, body] of ADMIN_ROUTES) {
      const refused = await consoleCall(gateway, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(401);
      assertEnvelope('general', refused.json);
    }
  });

  it("a key holder's session: 403 operator_only on every admin route (CSRF token sent, so the refusal is about the role)", async () => {
    for (const [method, path, body] of ADMIN_ROUTES) {
      const refused = await consoleCall(gateway, method, path, body, { session: user });
      expect(refused.status, `${method} ${path}`).toBe(403);
      assertEnvelope('general', refused.json);
      expect(refused.json.error.code).toBe('operator_only');
    }
    expect((await admin(gateway, 'GET', '/users')).json.data.map((u: { email: string }) => u.email)).not.toContain('z@example.org');
  });

  it("an operator's session reads and writes the admin API; writes need the CSRF token (403 csrf_failed otherwise)", async () => {
    const keys = await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { session: operator, csrf: false });
    expect(keys.status).toBe(200);
    for (const [method, path, body] of WRITES) {
      for (const csrf of [false as const, 'wrong']) {
        const refused = await consoleCall(gateway, method, path, body, { session: operator, csrf });
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(refused.json.error.code).toBe('csrf_failed');
      }
    }
    const created = await consoleCall(gateway, 'POST', '/admin/api/keys', { name: 'by-session' }, { session: operator });
    expect(created.status).toBe(201);
    expect(created.json.owner).toBe('operator');
    expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, bearer(created.json.key))).status).toBe(200);
  });

  it('an invited operator account signs in with its password and may use the admin API', async () => {
    const person = await inviteUser(gateway, { role: 'operator' });
    const session = await signIn(gateway, person.email, person.password);
    expect(session.user.role).toBe('operator');
    expect((await consoleCall(gateway, 'GET', '/admin/api/users', undefined, { session })).status).toBe(200);
    // Demoted, their sessions end and a new one is a key holder's.
    await admin(gateway, 'PATCH', `/users/${person.id}`, { role: 'user' });
    expect((await consoleCall(gateway, 'GET', '/admin/api/users', undefined, { session })).status).toBe(401);
    const again = await signIn(gateway, person.email, person.password);
    expect((await consoleCall(gateway, 'GET', '/admin/api/users', undefined, { session: again })).status).toBe(403);
  });

  it('the admin Bearer token still works alone, needs no CSRF token, and a wrong one is 401 even beside a valid cookie', async () => {
    expect((await admin(gateway, 'POST', '/keys', { name: 'bearer' })).status).toBe(201);
    const wrong = await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { session: operator, headers: { authorization: 'Bearer gwadm-wrong' } });
    expect(wrong.status).toBe(401);
    const apiKey = await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { headers: bearer(TEST_KEY) });
    expect(apiKey.status).toBe(401);
  });
});
