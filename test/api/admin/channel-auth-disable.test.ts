import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { startFakeVendor, type FakeVendor } from '../../helpers/fake-vendor.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';
import type { FileConfig } from '../../../src/config/schema.js';

const SECRET = 'sk-upstream-revoked-4242';

const chat = (gateway: { url: string }, model: string) =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(TEST_KEY));

/** A vendor that refuses every request as OpenAI does a revoked key, quoting the key back (the redactor must take it out). */
const refusingVendor = () =>
  startFakeVendor(({ headers }) => ({
    status: 401,
    json: { error: { message: `Incorrect API key provided: ${String(headers.authorization).replace('Bearer ', '')}. The vendor says no.`, type: 'invalid_request_error', code: 'invalid_api_key' } },
  }));

function fileFor(vendor: FakeVendor, routing: FileConfig['routing'] = {}): FileConfig {
  const refusing = { vendor: 'openai', base_url: `${vendor.url}/v1`, api_key: SECRET, max_retries: 0, priority: 0 } as const;
  return {
    routing,
    channels: [
      { ...refusing, name: 'guarded', models: { 'delta-4.1': 'gpt-4.1' }, auto_disable_after_auth_failures: 2 },
      { ...refusing, name: 'exempt', models: { 'epsilon-4.7': 'gpt-5' }, auto_disable_after_auth_failures: 0 },
      { ...refusing, name: 'inherits', models: { 'beta-seed-2.0-lite': 'x' } },
      { name: 'spare', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1', 'epsilon-4.7': 'gpt-5', 'beta-seed-2.0-lite': 'x' }, priority: 1 },
    ],
  };
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 8_000): Promise<T> {
  let value = await read();
  for (let waited = 0; !done(value) && waited < ms; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

describe('a channel disabled after consecutive authentication failures (issue 35)', () => {
  let vendor: FakeVendor;
  let gateway: TestGateway;
  beforeAll(async () => {
    vendor = await refusingVendor();
    gateway = await startTestGateway({ file: fileFor(vendor, { auto_disable_after_auth_failures: 3 }) });
  });
  afterAll(async () => {
    await gateway?.stop();
    await vendor?.close();
  });

  it('after its threshold of 401s the channel is disabled on its own, with the vendor\'s redacted text and time; traffic goes to the spare', async () => {
    expect((await admin(gateway, 'GET', '/channels/guarded')).json).toMatchObject({ enabled: true, auto_disable_after_auth_failures: 2, auto_disabled: null });
    // The first refusal falls back to the spare; the channel stays on until the second in a row.
    expect((await chat(gateway, 'delta-4.1')).status).toBe(200);
    expect((await admin(gateway, 'GET', '/channels/guarded')).json.enabled).toBe(true);
    const second = await chat(gateway, 'delta-4.1');
    expect(second.status).toBe(200);
    expect(second.text).not.toContain('vendor says no');

    const channel = (await eventually(() => admin(gateway, 'GET', '/channels/guarded'), (r) => r.json.enabled === false)).json;
    expect(channel).toMatchObject({ enabled: false, auto_disabled: { failures: 2, status: 401, message: expect.any(String), vendor_message: expect.stringContaining('The vendor says no.') } });
    expect(Date.parse(channel.auto_disabled.at)).not.toBeNaN();
    expect(JSON.stringify(channel)).not.toContain(SECRET);

    // Disabled: the vendor is asked nothing more.
    const asked = vendor.calls.length;
    expect((await chat(gateway, 'delta-4.1')).status).toBe(200);
    expect(vendor.calls.length).toBe(asked);
  });

  it('enabling it again clears the reason; it is counted from zero again', async () => {
    const enabled = await admin(gateway, 'PATCH', '/channels/guarded', { enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.json).toMatchObject({ enabled: true, auto_disabled: null });
    expect((await chat(gateway, 'delta-4.1')).status).toBe(200);
    expect((await admin(gateway, 'GET', '/channels/guarded')).json).toMatchObject({ enabled: true, auto_disabled: null });
  });

  it('0 on the channel keeps it on whatever routing says; a channel without its own setting takes routing\'s', async () => {
    for (let i = 0; i < 4; i++) expect((await chat(gateway, 'epsilon-4.7')).status).toBe(200);
    expect((await admin(gateway, 'GET', '/channels/exempt')).json).toMatchObject({ enabled: true, auto_disable_after_auth_failures: null, auto_disabled: null });

    for (let i = 0; i < 2; i++) expect((await chat(gateway, 'beta-seed-2.0-lite')).status).toBe(200);
    expect((await admin(gateway, 'GET', '/channels/inherits')).json).toMatchObject({ enabled: true, auto_disable_after_auth_failures: 3 });
    expect((await chat(gateway, 'beta-seed-2.0-lite')).status).toBe(200);
    const inherits = await eventually(() => admin(gateway, 'GET', '/channels/inherits'), (r) => r.json.enabled === false);
    expect(inherits.json).toMatchObject({ enabled: false, auto_disabled: { failures: 3, status: 401 } });
  });

  it('a test keeps its last result (model, vendor status, redacted vendor text) for the channel\'s page', async () => {
    const tested = await admin(gateway, 'POST', '/channels/exempt/test', { model: 'epsilon-4.7' });
    expect(tested.status, tested.text).toBe(200);
    expect(tested.json).toMatchObject({ ok: false, model: 'epsilon-4.7', vendor_status: 401, vendor_message: expect.stringContaining('The vendor says no.'), at: expect.any(String) });
    expect(tested.text).not.toContain(SECRET);
    const kept = (await admin(gateway, 'GET', '/channels/exempt')).json.last_test;
    expect(kept).toEqual(tested.json);
    const spare = await admin(gateway, 'POST', '/channels/spare/test', { model: 'beta-seed-2.0-lite' });
    expect(spare.json).toMatchObject({ ok: true, model: 'beta-seed-2.0-lite', reply: expect.any(String) });
    expect((await admin(gateway, 'GET', '/channels')).json.data.find((c: { id: string }) => c.id === 'spare').last_test).toEqual(spare.json);
  });

  it('the threshold is a channel field of the admin API: set, read back, removed with null', async () => {
    const set = await admin(gateway, 'PATCH', '/channels/spare', { auto_disable_after_auth_failures: 5 });
    expect(set.status, set.text).toBe(200);
    expect(set.json.auto_disable_after_auth_failures).toBe(5);
    expect((await admin(gateway, 'PATCH', '/channels/spare', { auto_disable_after_auth_failures: -1 })).status).toBe(400);
    expect((await admin(gateway, 'PATCH', '/channels/spare', { auto_disable_after_auth_failures: null })).json.auto_disable_after_auth_failures).toBe(3);
  });
});

describe('off by default (issue 35)', () => {
  let vendor: FakeVendor;
  let gateway: TestGateway;
  beforeAll(async () => {
    vendor = await refusingVendor();
    const file = fileFor(vendor);
    file.channels = file.channels!.map(({ auto_disable_after_auth_failures: _unset, ...channel }) => channel);
    gateway = await startTestGateway({ file });
  });
  afterAll(async () => {
    await gateway?.stop();
    await vendor?.close();
  });

  it('without a threshold anywhere, refusals never disable a channel', async () => {
    for (let i = 0; i < 5; i++) expect((await chat(gateway, 'delta-4.1')).status).toBe(200);
    expect((await admin(gateway, 'GET', '/channels/guarded')).json).toMatchObject({ enabled: true, auto_disable_after_auth_failures: null, auto_disabled: null, last_error: { status: 401 } });
  });
});

describe('auto-disable on PostgreSQL reaches every instance (issue 35)', () => {
  let vendor: FakeVendor;
  let database: TestDatabase;
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    vendor = await refusingVendor();
    database = await createTestDatabase();
    first = await startTestGateway({ file: fileFor(vendor), env: { databaseUrl: database.url } });
    second = await startTestGateway({ file: fileFor(vendor), env: { databaseUrl: database.url } });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
    await vendor?.close();
  });

  it('disabled by one instance, the other stops routing to it and shows the reason; enabled on the other, it is cleared on both', async () => {
    for (let i = 0; i < 2; i++) expect((await chat(first, 'delta-4.1')).status).toBe(200);
    const seen = await eventually(() => admin(second, 'GET', '/channels/guarded'), (r) => r.json.enabled === false);
    expect(seen.json).toMatchObject({ enabled: false, auto_disabled: { failures: 2, status: 401, vendor_message: expect.stringContaining('The vendor says no.') } });
    const asked = vendor.calls.length;
    expect((await chat(second, 'delta-4.1')).status).toBe(200);
    expect(vendor.calls.length).toBe(asked);

    expect((await admin(second, 'PATCH', '/channels/guarded', { enabled: true })).json.auto_disabled).toBeNull();
    const cleared = await eventually(() => admin(first, 'GET', '/channels/guarded'), (r) => r.json.enabled === true);
    expect(cleared.json).toMatchObject({ enabled: true, auto_disabled: null });
  }, 30_000);
});
