import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/gateway.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, signInWithAdminToken } from '../../helpers/console.js';

/**
 * Issue 23 item 6 over plain HTTP: console writes carry `application/json`, and signing in or
 * accepting an invitation from a browser must come from the console's own origin.
 */
describe('console writes and cross-site sign-in (issue 23)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  const raw = async (path: string, body: string, headers: Record<string, string>) => {
    const response = await fetch(gateway.url + path, { method: 'POST', body, headers });
    return { status: response.status, json: (await response.json()) as any };
  };

  it('refuses a sign-in sent as a form or text, whatever its body', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
      const refused = await raw('/console/api/session', JSON.stringify({ admin_token: TEST_ADMIN_TOKEN }), { 'content-type': type });
      expect(refused.status, type).toBe(400);
      assertEnvelope('general', refused.json);
      expect(refused.json.error.code).toBe('unsupported_media_type');
    }
    const json = await raw('/console/api/session', JSON.stringify({ admin_token: TEST_ADMIN_TOKEN }), { 'content-type': 'application/json; charset=utf-8' });
    expect(json.status).toBe(200);
  });

  it('refuses a sign-in or an invitation accepted from another origin or site; the console\'s own origin and scripts pass', async () => {
    const own = new URL(gateway.url).origin;
    for (const headers of [{ origin: 'http://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site', origin: own }] as Array<Record<string, string>>) {
      const refused = await consoleCall(gateway, 'POST', '/console/api/session', { admin_token: TEST_ADMIN_TOKEN }, { headers });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.json.error.code).toBe('csrf_failed');
      const accept = await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: 'x'.repeat(43), password: 'a long enough password' }, { headers });
      expect(accept.status, JSON.stringify(headers)).toBe(403);
    }
    for (const headers of [{ origin: own, 'sec-fetch-site': 'same-origin' }, {}] as Array<Record<string, string>>) {
      expect((await consoleCall(gateway, 'POST', '/console/api/session', { admin_token: TEST_ADMIN_TOKEN }, { headers })).status).toBe(200);
    }
  });

  it('a signed-in write with the right CSRF token is still refused unless its body is JSON (console and admin API)', async () => {
    const { session } = await inviteUser(gateway);
    const operator = await signInWithAdminToken(gateway);
    const cases: Array<[typeof session, string]> = [[session, '/console/api/keys'], [operator, '/admin/api/keys']];
    for (const [who, path] of cases) {
      const response = await fetch(gateway.url + path, {
        method: 'POST',
        headers: { cookie: who.cookie, 'x-csrf-token': who.csrf, 'content-type': 'text/plain' },
        body: JSON.stringify({ name: 'by form' }),
      });
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as any).error.code).toBe('unsupported_media_type');
    }
    // Writes without a body need no content type (the console's revoke and regenerate).
    const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'mine' }, { session });
    expect(created.status).toBe(201);
    expect((await consoleCall(gateway, 'POST', `/console/api/keys/${created.json.id}/regenerate`, undefined, { session })).status).toBe(200);
    // Scripts with the admin token keep curl's form content type working.
    const script = await fetch(`${gateway.url}/admin/api/keys`, { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' }, body: JSON.stringify({ name: 'from curl' }) });
    expect(script.status).toBe(201);
  });
});
