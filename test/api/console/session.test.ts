import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/gateway.js';
import { admin } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, sessionFrom, signIn, signInWithAdminToken } from '../../helpers/console.js';

describe('console sessions: sign-in, CSRF, sign-out (issue 12)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('signs in with the admin token as the built-in operator; the cookie is HttpOnly, SameSite=Strict, not Secure over plain HTTP', async () => {
    const session = await signInWithAdminToken(gateway);
    expect(session.user).toMatchObject({ id: 'operator', role: 'operator', email: null, disabled: false });
    expect(session.csrf).toMatch(/^[\w-]{20,}$/);
    expect(session.setCookie).toMatch(/; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(session.setCookie).not.toContain('Secure');
    const current = await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session });
    expect(current.status).toBe(200);
    expect(current.json).toMatchObject({ user: { id: 'operator' }, csrf_token: session.csrf });
    // The token itself is never stored: the sessions table holds its SHA-256.
    const rows = await gateway.deps.db.selectFrom('sessions').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).not.toContain(session.cookie.split('=')[1]);
  });

  it('refuses a wrong admin token, a wrong password and an unknown email with 401 (general envelope), and a body with neither with 400', async () => {
    const { email } = await inviteUser(gateway);
    for (const body of [{ admin_token: 'gwadm-wrong' }, { email, password: 'not the password' }, { email: 'nobody@example.org', password: 'whatever12345' }]) {
      const refused = await consoleCall(gateway, 'POST', '/console/api/session', body, { from: '127.0.0.5' });
      expect(refused.status, JSON.stringify(body)).toBe(401);
      assertEnvelope('general', refused.json);
      expect(refused.headers.get('set-cookie')).toBeNull();
    }
    for (const body of [{}, { email }, { admin_token: TEST_ADMIN_TOKEN, email, password: 'x' }, { admin_token: TEST_ADMIN_TOKEN, extra: 1 }]) {
      const bad = await consoleCall(gateway, 'POST', '/console/api/session', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      assertEnvelope('general', bad.json);
    }
  });

  it('signs a user in with email (any case) and password; GET /session without a cookie or with a made-up one is 401', async () => {
    const { email, password } = await inviteUser(gateway, { name: 'Ann' });
    const session = await signIn(gateway, email.toUpperCase(), password);
    expect(session.user).toMatchObject({ email, role: 'user', name: 'Ann', has_password: true });
    for (const options of [{}, { headers: { cookie: 'gw_session=made-up-token-0123456789abcdef' } }]) {
      const refused = await consoleCall(gateway, 'GET', '/console/api/session', undefined, options);
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe('not_signed_in');
    }
  });

  it('sign-out needs the CSRF token, then ends this session only', async () => {
    const { email, password, session: first } = await inviteUser(gateway);
    const second = await signIn(gateway, email, password);
    for (const csrf of [false as const, 'wrong-token', second.csrf]) {
      const refused = await consoleCall(gateway, 'DELETE', '/console/api/session', undefined, { session: first, csrf });
      expect(refused.status, String(csrf)).toBe(403);
      expect(refused.json.error.code).toBe('csrf_failed');
    }
    const out = await consoleCall(gateway, 'DELETE', '/console/api/session', undefined, { session: first });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^gw_session=; .*Max-Age=0/);
    expect((await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session: first })).status).toBe(401);
    expect((await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session: second })).status).toBe(200);
  });

  it('sign out everywhere ends every session of the user, and no one else\'s', async () => {
    const ann = await inviteUser(gateway);
    const annElsewhere = await signIn(gateway, ann.email, ann.password);
    const bob = await inviteUser(gateway);
    const refused = await consoleCall(gateway, 'POST', '/console/api/session/revoke-all', undefined, { session: ann.session, csrf: false });
    expect(refused.status).toBe(403);
    expect((await consoleCall(gateway, 'POST', '/console/api/session/revoke-all', undefined, { session: ann.session })).status).toBe(204);
    for (const session of [ann.session, annElsewhere]) expect((await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session })).status).toBe(401);
    expect((await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session: bob.session })).status).toBe(200);
  });

  it('an invitation works once; a short password is a 400 that does not use it up; an expired one is refused', async () => {
    const created = await admin(gateway, 'POST', '/users', { email: 'once@example.org', name: 'Once' });
    expect(created.status).toBe(201);
    expect(created.json.invite_url).toBe(`${gateway.url}/console/invite#token=${created.json.invite_token}`);
    expect(created.json.user).toMatchObject({ email: 'once@example.org', role: 'user', has_password: false });
    const short = await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: created.json.invite_token, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.json.error.message).toContain('password');
    const accepted = sessionFrom(await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: created.json.invite_token, password: 'a long enough password' }));
    expect(accepted.user).toMatchObject({ id: created.json.user.id, has_password: true });
    const again = await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: created.json.invite_token, password: 'another long password' });
    expect(again.status).toBe(400);
    expect(again.json.error.code).toBe('invalid_invitation');
    // The password set by the first acceptance is the one that works.
    await signIn(gateway, 'once@example.org', 'a long enough password');

    const late = await admin(gateway, 'POST', '/users', { email: 'late@example.org', name: 'Late' });
    await gateway.deps.db.updateTable('invitations').set({ expires_at: Date.now() - 1 }).where('user_id', '=', late.json.user.id).execute();
    const expired = await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: late.json.invite_token, password: 'a long enough password' });
    expect(expired.status).toBe(400);
    expect(expired.json.error.code).toBe('invalid_invitation');
  });

  it('a disabled user cannot sign in and their sessions end; re-enabled, they can again', async () => {
    const person = await inviteUser(gateway);
    expect((await admin(gateway, 'PATCH', `/users/${person.id}`, { disabled: true })).json.disabled).toBe(true);
    expect((await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session: person.session })).status).toBe(401);
    const refused = await consoleCall(gateway, 'POST', '/console/api/session', { email: person.email, password: person.password });
    expect(refused.status).toBe(403);
    await admin(gateway, 'PATCH', `/users/${person.id}`, { disabled: false });
    await signIn(gateway, person.email, person.password);
  });

  describe('sign-in rate limiting (10 failures per IP in 15 minutes; per IP and account with backoff, issue 23)', () => {
    it('per account: failures from many addresses make those addresses wait, never the right password from a fresh one', async () => {
      const person = await inviteUser(gateway);
      for (let i = 0; i < 10; i++) {
        const wrong = await consoleCall(gateway, 'POST', '/console/api/session', { email: person.email, password: `wrong-${i}` }, { from: `127.0.1.${i + 1}` });
        expect(wrong.status).toBe(401);
      }
      const limited = await consoleCall(gateway, 'POST', '/console/api/session', { email: person.email, password: person.password }, { from: '127.0.1.1' });
      expect(limited.status).toBe(429);
      assertEnvelope('general', limited.json);
      expect(limited.json.error.code).toBe('too_many_sign_in_attempts');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      // The right password from an address that has not failed signs in (issue 23 item 7).
      expect((await consoleCall(gateway, 'POST', '/console/api/session', { email: person.email, password: person.password }, { from: '127.0.1.50' })).status).toBe(200);
      // Another account from a failing address is not affected.
      const other = await inviteUser(gateway);
      expect((await consoleCall(gateway, 'POST', '/console/api/session', { email: other.email, password: other.password }, { from: '127.0.1.1' })).status).toBe(200);
    });

    it('per IP: after 10 failures from one address (any accounts), that address is refused; others are not', async () => {
      const person = await inviteUser(gateway);
      for (let i = 0; i < 10; i++) {
        const wrong = await consoleCall(gateway, 'POST', '/console/api/session', { email: `guess${i}@example.org`, password: 'wrong-password' }, { from: '127.0.2.1' });
        expect(wrong.status).toBe(401);
      }
      const limited = await consoleCall(gateway, 'POST', '/console/api/session', { email: person.email, password: person.password }, { from: '127.0.2.1' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await consoleCall(gateway, 'POST', '/console/api/session', { email: person.email, password: person.password }, { from: '127.0.2.2' })).status).toBe(200);
    });
  });
});

describe('console sessions behind HTTPS (issue 12)', () => {
  it('the cookie is Secure when the public URL is https (TLS ended at a proxy)', async () => {
    const gateway = await startTestGateway({ env: { publicUrl: 'https://gateway.example.org' } });
    try {
      const session = await signInWithAdminToken(gateway);
      expect(session.setCookie).toMatch(/; Secure$/);
    } finally {
      await gateway.stop();
    }
  });

  it('replacing the admin token ends the sessions signed in with the old one', async () => {
    const gateway = await startTestGateway();
    const session = await signInWithAdminToken(gateway);
    await gateway.stop({ keepData: true });
    const restarted = await startTestGateway({ dataDir: gateway.dataDir, env: { adminToken: 'gwadm-a-new-admin-token' } });
    try {
      expect((await consoleCall(restarted, 'GET', '/console/api/session', undefined, { session })).status).toBe(401);
      const fresh = sessionFrom(await consoleCall(restarted, 'POST', '/console/api/session', { admin_token: 'gwadm-a-new-admin-token' }));
      expect((await consoleCall(restarted, 'GET', '/console/api/session', undefined, { session: fresh })).status).toBe(200);
    } finally {
      await restarted.stop();
    }
  });
});
