import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/gateway.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser } from '../../helpers/console.js';

/**
 * Issue 23 items 4 and 7: sign-in limits under concurrency and against lockout. An attempt is taken
 * from the counters before the password is verified, so a burst from one address verifies no more
 * than the limit allows; limits are per address and per (address, account), so strangers' wrong
 * guesses never lock the right credential out of an address that has not failed.
 */
const signInFrom = (gateway: TestGateway, from: string, body: Record<string, unknown>) => consoleCall(gateway, 'POST', '/console/api/session', body, { from });

describe('sign-in limits (issue 23)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('60 parallel sign-ins from one address verify only the allowed number (item 4)', async () => {
    const person = await inviteUser(gateway);
    const bodies = Array.from({ length: 60 }, (_, i) => ({ email: person.email, password: i === 59 ? person.password : `wrong-password-${i}` }));
    const answers = await Promise.all(bodies.map((body) => signInFrom(gateway, '127.0.3.1', body)));
    const verifiedWrong = answers.filter((a) => a.status === 401);
    const refused = answers.filter((a) => a.status === 429);
    // At most five tries a minute from one address on one account; the rest are refused unverified.
    expect(verifiedWrong.length).toBeLessThanOrEqual(5);
    expect(refused.length).toBeGreaterThanOrEqual(54);
    for (const answer of refused) {
      assertEnvelope('general', answer.json);
      expect(answer.json.error.code).toBe('too_many_sign_in_attempts');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // The admin token's sign-in too.
    const tokens = await Promise.all(Array.from({ length: 60 }, (_, i) => signInFrom(gateway, '127.0.3.2', { admin_token: `gwadm-wrong-${i}` })));
    expect(tokens.filter((a) => a.status === 401).length).toBeLessThanOrEqual(5);
  });

  it('ten wrong admin tokens from many addresses do not lock the operator out of an address that has not failed (item 7)', async () => {
    for (let i = 0; i < 30; i++) expect((await signInFrom(gateway, `127.0.4.${i + 1}`, { admin_token: `gwadm-guess-${i}` })).status).toBe(401);
    const operator = await signInFrom(gateway, '127.0.4.200', { admin_token: TEST_ADMIN_TOKEN });
    expect(operator.status, operator.text).toBe(200);
    // The admin API's bearer token likewise.
    const api = await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { from: '127.0.4.201', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(api.status).toBe(200);
  });

  it("a user's email cannot be locked by strangers either; the failing addresses wait, with backoff (item 7)", async () => {
    const person = await inviteUser(gateway);
    for (let i = 0; i < 30; i++) expect((await signInFrom(gateway, `127.0.5.${i + 1}`, { email: person.email, password: `guess-${i}` })).status).toBe(401);
    // The account is under attack: an address that already failed on it waits for the window...
    const again = await signInFrom(gateway, '127.0.5.1', { email: person.email, password: person.password });
    expect(again.status).toBe(429);
    // ...while the person, from an address that never failed, signs in.
    expect((await signInFrom(gateway, '127.0.5.200', { email: person.email, password: person.password })).status).toBe(200);

    // One address guessing one account: five tries a minute, then a wait that grows with the window.
    const other = await inviteUser(gateway);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await signInFrom(gateway, '127.0.6.1', { email: other.email, password: `nope-${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const waited = await signInFrom(gateway, '127.0.6.1', { email: other.email, password: other.password });
    expect(waited.status).toBe(429);
    expect(Number(waited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await signInFrom(gateway, '127.0.6.2', { email: other.email, password: other.password })).status).toBe(200);
  });

  it('wrong admin-API bearer tokens are limited per address like sign-ins; other addresses keep working', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { from: '127.0.7.1', headers: { authorization: `Bearer gwadm-wrong-${i}` } })).status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((status) => status === 429)).toBe(true);
    const right = await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { from: '127.0.7.2', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(right.status).toBe(200);
  });

  it('issue 34: wrong admin bearers lock nothing out: the right token still works from that address, wrong ones stay throttled', async () => {
    const from = '127.0.8.1';
    for (let i = 0; i < 8; i++) await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { from, headers: { authorization: `Bearer sk-gw-pasted-by-mistake-${i}` } });
    const wrong = await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { from, headers: { authorization: 'Bearer gwadm-wrong-again' } });
    expect(wrong.status).toBe(429);
    const api = await consoleCall(gateway, 'GET', '/admin/api/keys', undefined, { from, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(api.status).toBe(200);
    const console = await signInFrom(gateway, from, { admin_token: TEST_ADMIN_TOKEN });
    expect(console.status).toBe(200);
    const wrongSignIn = await signInFrom(gateway, from, { admin_token: 'gwadm-wrong-sign-in' });
    expect(wrongSignIn.status).toBe(429);
    assertEnvelope('general', wrongSignIn.json);
  });
});
