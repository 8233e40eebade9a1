import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, signInWithAdminToken } from '../../helpers/console.js';

/**
 * Issue 35's smaller rows, over real HTTP on a real SQLite gateway: the sign-in page learns whether
 * anyone has a password yet; deleting a model can take it out of allowances and keys, and without
 * that it vanishes from them and is granted to no new key; a bad request-log status filter is a
 * sentence, not a regex; a refused model lists only the models the key may use.
 */
describe("the operator's day, round two: the smaller rows (issue 35)", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('tells the sign-in page that only the admin token works on a fresh install, and that passwords do once someone has one', async () => {
    const fresh = await consoleCall(gateway, 'GET', '/console/api/sign-in-options');
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.json).toEqual({ password_sign_in: false });
    // An invited person who has not set a password yet cannot sign in with one either.
    expect((await admin(gateway, 'POST', '/users', { email: 'not-yet@example.org', name: 'Not yet' })).status).toBe(201);
    expect((await consoleCall(gateway, 'GET', '/console/api/sign-in-options')).json).toEqual({ password_sign_in: false });
    await inviteUser(gateway, { email: 'first@example.org' });
    expect((await consoleCall(gateway, 'GET', '/console/api/sign-in-options')).json).toEqual({ password_sign_in: true });
  });

  it('deletes a model with prune=true: it leaves every allowance and key list that named it', async () => {
    expect((await admin(gateway, 'POST', '/models', { id: 'house-pruned', kind: 'chat' })).status).toBe(201);
    const person = await inviteUser(gateway, { models: ['house-pruned', 'delta-4.1'] });
    const key = await createKey(gateway, { models: ['house-pruned', 'delta-4.1'] });
    const only = await createKey(gateway, { models: ['house-pruned'] });

    expect((await admin(gateway, 'DELETE', '/models/house-pruned?prune=true')).status).toBe(204);
    expect((await admin(gateway, 'GET', `/users/${person.id}`)).json.models).toEqual(['delta-4.1']);
    expect((await admin(gateway, 'GET', `/keys/${key.id}`)).json.models).toEqual(['delta-4.1']);
    // A list that named only the deleted model grants nothing now, never "every model".
    expect((await admin(gateway, 'GET', `/keys/${only.id}`)).json.models).toEqual([]);
    // Added again with the same id, it is not granted back: the stored lists changed.
    expect((await admin(gateway, 'POST', '/models', { id: 'house-pruned', kind: 'chat' })).status).toBe(201);
    expect((await admin(gateway, 'GET', `/keys/${key.id}`)).json.models).toEqual(['delta-4.1']);
    expect((await admin(gateway, 'DELETE', '/models/house-pruned')).status).toBe(204);
  });

  it('deletes a model without pruning: the console stops showing it and a new key does not get it', async () => {
    expect((await admin(gateway, 'POST', '/models', { id: 'house-kept', kind: 'chat' })).status).toBe(201);
    const person = await inviteUser(gateway, { models: ['house-kept', 'delta-4.1'] });
    const key = (await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'before' }, { session: person.session })).json;
    expect(key.models).toEqual(['house-kept', 'delta-4.1']);

    expect((await admin(gateway, 'DELETE', '/models/house-kept')).status).toBe(204);
    expect((await admin(gateway, 'GET', `/users/${person.id}`)).json.models).toEqual(['delta-4.1']);
    expect((await admin(gateway, 'GET', `/keys/${key.id}`)).json.models).toEqual(['delta-4.1']);
    const own = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session: person.session });
    expect(own.json.data.find((k: { id: string }) => k.id === key.id).models).toEqual(['delta-4.1']);
    const me = await consoleCall(gateway, 'GET', '/console/api/session', undefined, { session: person.session });
    expect(me.json.user.models).toEqual(['delta-4.1']);

    const after = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'after' }, { session: person.session });
    expect(after.status, after.text).toBe(201);
    expect(after.json.models).toEqual(['delta-4.1']);
    const asked = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'asks', models: ['house-kept'] }, { session: person.session });
    expect(asked.status).toBe(400);
  });

  it('answers a bad status filter of the request log with a sentence, not a regex', async () => {
    const operator = await signInWithAdminToken(gateway);
    for (const answer of [
      await admin(gateway, 'GET', '/requests?status=weird'),
      await consoleCall(gateway, 'GET', '/console/api/requests?status=weird', undefined, { session: operator }),
      await admin(gateway, 'GET', '/requests.csv?status=4x'),
    ]) {
      expect(answer.status).toBe(400);
      const message = (answer.json as { error: { message: string } }).error.message;
      expect(message).toBe("'status' must be an HTTP status such as 429, a class such as 4xx, 'error' or 'success'");
      expect(message).not.toMatch(/[\^$|\\]/);
    }
    const limit = await admin(gateway, 'GET', '/requests?limit=lots');
    expect(limit.status).toBe(400);
    expect(limit.json.error.message).toBe("'limit' must be a whole number from 1 to 200");
  });

  it('lists only the models a key may use when it names a model that does not exist', async () => {
    const narrow = await createKey(gateway, { models: ['delta-4.1'] });
    const refused = await call(gateway, 'POST', '/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }, bearer(narrow.key));
    expect(refused.status).toBe(400);
    assertEnvelope('chat', refused.json);
    expect(refused.json.error.message).toBe("'model' must be one of: delta-4.1");
    // A key allowed only models of another family is told it may use none here.
    const images = await createKey(gateway, { models: ['gamma-3.1-flash-image'] });
    const none = await call(gateway, 'POST', '/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }, bearer(images.key));
    expect(none.status).toBe(400);
    expect(none.json.error.message).toBe("'model' names no model this API key may use on this endpoint");
    // A key without a model list still reads the whole list.
    const open = await createKey(gateway, {});
    const all = await call(gateway, 'POST', '/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }, bearer(open.key));
    expect(all.json.error.message.split(', ').length).toBeGreaterThan(3);
  });
});
