import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../helpers/admin.js';
import { consoleCall, inviteUser, signInWithAdminToken, type ConsoleSession } from '../../helpers/console.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const PATH = '/console/api/playground/chat/completions';
const ask = (keyId: string) => ({ key_id: keyId, model: 'delta-4.1', messages: [{ role: 'user', content: 'say hello' }], max_tokens: 16 });

/** The event stream's text deltas and its last usage. */
function readStream(text: string): { content: string; usage: { prompt_tokens: number } | undefined; done: boolean } {
  let content = '';
  let usage;
  let done = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    if (line === 'data: [DONE]') {
      done = true;
      continue;
    }
    const chunk = JSON.parse(line.slice(6));
    content += chunk.choices?.[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  return { content, usage, done };
}

/**
 * The console's playground (issue 35): the signed-in session is the credential; the person picks
 * one of their keys by id and no secret is pasted, sent or shown. The chat runs through the
 * gateway's own endpoint as that key (its usage, its log row), and nobody can act as a key that
 * is not theirs, or as any key from outside the process.
 */
describe('the playground chats as one of your keys, with the session and no secret', () => {
  let gateway: TestGateway;
  let ann: { session: ConsoleSession; id: string };
  let bob: { session: ConsoleSession; id: string };
  let annKey: { id: string; key: string };
  let bobKey: { id: string; key: string };
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
    ann = await inviteUser(gateway);
    bob = await inviteUser(gateway);
    annKey = (await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'ann-play' }, { session: ann.session })).json;
    bobKey = (await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'bob-play' }, { session: bob.session })).json;
  });
  afterAll(() => gateway.stop());

  it("streams the answer as the chosen key, counted in that key's usage and log, with no secret in the answer", async () => {
    const answer = await consoleCall(gateway, 'POST', PATH, ask(annKey.id), { session: ann.session });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = readStream(answer.text);
    expect(stream.done).toBe(true);
    expect(stream.content.length).toBeGreaterThan(0);
    expect(stream.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(answer.text).not.toContain(annKey.key);
    await gateway.deps.usage.flush();
    const log = await consoleCall(gateway, 'GET', '/console/api/requests?limit=10', undefined, { session: ann.session });
    expect(log.status, log.text).toBe(200);
    expect(log.json.data.map((row: { key_id: string }) => row.key_id)).toContain(annKey.id);
    const usage = await admin(gateway, 'GET', `/usage?key=${annKey.id}`);
    expect(usage.json.totals.requests).toBe(1);
  });

  it("refuses someone else's key as not found, and a missing CSRF header or session", async () => {
    const other = await consoleCall(gateway, 'POST', PATH, ask(bobKey.id), { session: ann.session });
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('bob-play');
    expect((await consoleCall(gateway, 'POST', PATH, ask(annKey.id), { session: ann.session, csrf: false })).status).toBe(403);
    expect((await consoleCall(gateway, 'POST', PATH, ask(annKey.id))).status).toBe(401);
    const usage = await admin(gateway, 'GET', `/usage?key=${bobKey.id}`);
    expect(usage.json.totals.requests).toBe(0);
  });

  it("judges the key as a secret would be: a revoked key is refused with the gateway's own error", async () => {
    const spare = (await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'ann-spare' }, { session: ann.session })).json;
    expect((await admin(gateway, 'DELETE', `/keys/${spare.id}`)).status).toBe(200);
    const answer = await consoleCall(gateway, 'POST', PATH, ask(spare.id), { session: ann.session });
    expect(answer.status).toBe(401);
    expect(answer.json.error.message).toContain('revoked');
  });

  it('an operator may use any key; the endpoint itself still wants a key from any outside caller', async () => {
    const operator = await signInWithAdminToken(gateway);
    expect((await consoleCall(gateway, 'POST', PATH, ask(bobKey.id), { session: operator })).status).toBe(200);
    // Nothing a network request can send makes it act as a key: without a secret it is refused.
    const outside = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, { 'x-key-id': bobKey.id });
    expect(outside.status).toBe(401);
  });
});
