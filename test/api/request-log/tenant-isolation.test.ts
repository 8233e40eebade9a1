import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { consoleCall, inviteUser, type ConsoleSession } from '../../helpers/console.js';

/**
 * Issue 23 item 1: the request log's entries are joined to their details by an id the gateway alone
 * makes. A client chooses its own `x-request-id`; an attacker who sends a victim's (or the next
 * predictable gateway id) must never see the victim's request through their own log, and the
 * operator's drawer must show each request's own body.
 */
const ROUNDS = 30;

describe('request log tenant isolation (issue 23)', () => {
  let gateway: TestGateway;
  let victim: { session: ConsoleSession; key: string };
  let attacker: { session: ConsoleSession; key: string };
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { request_log: { bodies: true } } });
    const person = async (name: string) => {
      const user = await inviteUser(gateway, { name });
      const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: `${name}-key` }, { session: user.session });
      expect(created.status, created.text).toBe(201);
      return { session: user.session, key: created.json.key as string };
    };
    victim = await person('victim');
    attacker = await person('attacker');
  });
  afterAll(() => gateway.stop());

  const chat = (secret: string, marker: string, requestId: string) =>
    call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: marker }], max_tokens: 5 }, { ...bearer(secret), 'x-request-id': requestId });

  it("a key holder who reuses another tenant's x-request-id (or the next gateway id) sees only their own requests", async () => {
    // The gateway's own ids are a prefix and a counter: the attacker reads theirs and predicts the victim's.
    const probe = await chat(attacker.key, 'probe', 'attacker-probe');
    expect(probe.headers.get('x-request-id')).toBe('attacker-probe');
    const plain = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'x' }], max_tokens: 1 }, bearer(attacker.key));
    const gatewayId = plain.headers.get('x-request-id')!;
    expect(gatewayId).toMatch(/^req_/);

    // Each round: the victim and the attacker send at the same moment with one x-request-id.
    const pairs = await Promise.all(
      Array.from({ length: ROUNDS }, async (_, round) => {
        const id = `shared-${round}`;
        const [mine, theirs] = await Promise.all([chat(victim.key, `VICTIM-SECRET-${round}`, id), chat(attacker.key, `attacker-${round}`, id)]);
        expect(mine.status).toBe(200);
        expect(theirs.status).toBe(200);
        // The answer's x-request-id stays the client's, as documented.
        expect(mine.headers.get('x-request-id')).toBe(id);
        return id;
      }),
    );
    expect(pairs).toHaveLength(ROUNDS);

    // The attacker's log: one entry per request they made, never a duplicate, never the victim's body.
    const listed = await consoleCall(gateway, 'GET', '/console/api/requests?limit=200', undefined, { session: attacker.session });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.data).toHaveLength(ROUNDS + 2);
    expect(new Set(listed.json.data.map((entry: { id: string }) => entry.id)).size).toBe(ROUNDS + 2);
    for (const entry of listed.json.data as Array<{ id: string; request_id: string }>) {
      const detail = await consoleCall(gateway, 'GET', `/console/api/requests/${entry.id}`, undefined, { session: attacker.session });
      expect(detail.status, detail.text).toBe(200);
      expect(detail.text).not.toContain('VICTIM-SECRET');
      expect(detail.json.request_id).toBe(entry.request_id);
    }
    // Searching by the shared x-request-id finds the attacker's own request only.
    const searched = await consoleCall(gateway, 'GET', '/console/api/requests?request_id=shared-0', undefined, { session: attacker.session });
    expect(searched.json.data).toHaveLength(1);
    expect((await consoleCall(gateway, 'GET', `/console/api/requests/${searched.json.data[0].id}`, undefined, { session: attacker.session })).json.request_body).toContain('attacker-0');

    // The operator's drawer shows each request's own body: two entries per shared id, one each.
    for (let round = 0; round < ROUNDS; round++) {
      const both = await admin(gateway, 'GET', `/requests?request_id=shared-${round}`);
      expect(both.json.data, `round ${round}`).toHaveLength(2);
      const bodies = await Promise.all(both.json.data.map(async (entry: { id: string; key_name: string }) => ({ key: entry.key_name, body: (await admin(gateway, 'GET', `/requests/${entry.id}`)).json.request_body as string })));
      expect(bodies.find((b) => b.key === 'victim-key')!.body).toContain(`VICTIM-SECRET-${round}`);
      expect(bodies.find((b) => b.key === 'attacker-key')!.body).toContain(`attacker-${round}`);
    }
  });

  it('entry ids are unguessable: the victim cannot be reached by the next id, and another tenant gets a 404', async () => {
    const victims = await consoleCall(gateway, 'GET', '/console/api/requests?limit=5', undefined, { session: victim.session });
    const ids: string[] = victims.json.data.map((entry: { id: string }) => entry.id);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f-]{32,36}$/);
      expect((await consoleCall(gateway, 'GET', `/console/api/requests/${id}`, undefined, { session: attacker.session })).status).toBe(404);
    }
    // Sequential guesses and the old numeric form find nothing.
    for (const guess of ['1', '2', '99999999', 'not-an-id']) {
      expect((await consoleCall(gateway, 'GET', `/console/api/requests/${guess}`, undefined, { session: attacker.session })).status).toBe(404);
    }
  });
});
