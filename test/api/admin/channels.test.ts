import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser } from '../../helpers/console.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';
import type { FileConfig } from '../../../src/config/schema.js';

const chat = (gateway: { url: string }, model = 'delta-4.1') =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(TEST_KEY));

/** Which channel answered the last request, read back from the request log. */
async function lastChannel(gateway: { url: string }): Promise<string> {
  const page = await admin(gateway, 'GET', '/requests?limit=1');
  return page.json.data[0].channel;
}

const FILE: FileConfig = {
  prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } },
  routing: { circuit_threshold: 2, circuit_cool_down_ms: 60_000 },
  channels: [
    { name: 'primary', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' }, priority: 0 },
    { name: 'backup', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' }, priority: 1 },
    { name: 'broken', vendor: 'openai', models: { 'epsilon-4.7': 'gpt-5' }, max_retries: 0, simulator: { fault_status: 500 } },
    { name: 'parked', vendor: 'zhipu', models: { 'beta-seed-2.0-pro': 'glm-4.6' }, enabled: false },
    { name: 'remote', vendor: 'openai', base_url: 'http://user:hunter2@127.0.0.1:9/v1?token=abc', api_key: 'sk-upstream-secret', models: { 'beta-seed-2.0-lite': 'x' } },
  ],
};

describe('channels at runtime (issue 12)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: FILE });
  });
  afterAll(() => gateway.stop());

  it('lists every channel with its settings, file values, models and health; no credentials in base_url', async () => {
    const list = await admin(gateway, 'GET', '/channels');
    expect(list.status, list.text).toBe(200);
    const byId = Object.fromEntries(list.json.data.map((c: { id: string }) => [c.id, c]));
    expect(byId.primary).toMatchObject({ vendor: 'openai', simulator: true, enabled: true, weight: 1, priority: 0, overridden: false, models: ['delta-4.1'], circuit: 'closed', window_s: 300 });
    expect(byId.parked).toMatchObject({ enabled: false, file: { enabled: false } });
    expect(byId.remote.base_url).toBe('http://127.0.0.1:9/v1');
    expect(list.text).not.toContain('hunter2');
    expect(list.text).not.toContain('sk-upstream-secret');
    expect(list.text).not.toContain('token=abc');
    // The default simulator channels are there too.
    expect(byId['simulator-anthropic']).toMatchObject({ simulator: true, enabled: true });
  });

  it('counts upstream attempts per channel: requests, latency percentiles, error rate, the last error and the circuit', async () => {
    for (let i = 0; i < 3; i++) expect((await chat(gateway)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await chat(gateway, 'epsilon-4.7')).status).toBeGreaterThanOrEqual(500);
    const list = await admin(gateway, 'GET', '/channels');
    const byId = Object.fromEntries(list.json.data.map((c: { id: string }) => [c.id, c]));
    expect(byId.primary).toMatchObject({ requests: 3, error_rate: 0, last_error: null, latency_p50_ms: expect.any(Number), latency_p99_ms: expect.any(Number) });
    expect(byId.primary.latency_p99_ms).toBeGreaterThanOrEqual(byId.primary.latency_p50_ms);
    expect(byId.broken).toMatchObject({ requests: 2, error_rate: 1, circuit: 'open', last_error: { status: 500, message: expect.any(String), at: expect.any(String) } });
    expect(byId.backup).toMatchObject({ requests: 0, error_rate: null, latency_p50_ms: null });
  });

  it('disabling a channel moves its traffic at once; priority and weight change routing; null puts the file value back', async () => {
    expect(await (chat(gateway).then(() => lastChannel(gateway)))).toBe('primary');
    const disabled = await admin(gateway, 'PATCH', '/channels/primary', { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.json).toMatchObject({ enabled: false, overridden: true, file: { enabled: true } });
    expect(await (chat(gateway).then(() => lastChannel(gateway)))).toBe('backup');

    const models = await admin(gateway, 'GET', '/models');
    expect(models.status).toBe(200);
    expect(models.json.data.find((m: { id: string }) => m.id === 'delta-4.1')).toMatchObject({ channels: ['backup'], disabled_channels: ['primary'], price: { prompt_per_1m: 2 } });

    // Back on, but behind the backup: a lower priority number goes first.
    const reordered = await admin(gateway, 'PATCH', '/channels/primary', { enabled: null, priority: 5, weight: 7 });
    expect(reordered.json).toMatchObject({ enabled: true, priority: 5, weight: 7, overridden: true });
    expect(await (chat(gateway).then(() => lastChannel(gateway)))).toBe('backup');

    const reset = await admin(gateway, 'PATCH', '/channels/primary', { priority: null, weight: null });
    expect(reset.json).toMatchObject({ enabled: true, priority: 0, weight: 1, overridden: false });
    expect(await (chat(gateway).then(() => lastChannel(gateway)))).toBe('primary');
    expect(await gateway.deps.db.selectFrom('channel_settings').selectAll().where('name', '=', 'primary').execute()).toHaveLength(0);

    // A channel the file parks is enabled at runtime.
    expect((await chat(gateway, 'beta-seed-2.0-pro')).status).not.toBe(200);
    expect((await admin(gateway, 'PATCH', '/channels/parked', { enabled: true })).json.enabled).toBe(true);
    expect((await chat(gateway, 'beta-seed-2.0-pro')).status).toBe(200);
  });

  it('a model whose channels are all disabled is refused saying so, not as unconfigured (issue 22)', async () => {
    await admin(gateway, 'PATCH', '/channels/parked', { enabled: null });
    // 'parked', off in the file, is the only channel of beta-seed-2.0-pro.
    const parked = await chat(gateway, 'beta-seed-2.0-pro');
    expect(parked.status).toBe(503);
    assertEnvelope('chat', parked.json);
    expect(parked.json.error.message).toBe("Every upstream channel for model 'beta-seed-2.0-pro' is disabled");
    // Both of delta-4.1's channels switched off at runtime; the channel names stay the operator's.
    await admin(gateway, 'PATCH', '/channels/primary', { enabled: false });
    await admin(gateway, 'PATCH', '/channels/backup', { enabled: false });
    const off = await chat(gateway);
    expect(off.status).toBe(503);
    expect(off.json.error.message).toBe("Every upstream channel for model 'delta-4.1' is disabled");
    expect(off.text).not.toMatch(/primary|backup/);
    await admin(gateway, 'PATCH', '/channels/primary', { enabled: null });
    await admin(gateway, 'PATCH', '/channels/backup', { enabled: null });
    expect((await chat(gateway)).status).toBe(200);
  });

  it('tests a channel with one short message, enabled or not, and says what went wrong', async () => {
    await admin(gateway, 'PATCH', '/channels/backup', { enabled: false });
    const ok = await admin(gateway, 'POST', '/channels/backup/test', {});
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toMatchObject({ ok: true, model: 'delta-4.1', status: 200, error: null, reply: expect.any(String) });
    await admin(gateway, 'PATCH', '/channels/backup', { enabled: null });

    const failing = await admin(gateway, 'POST', '/channels/broken/test', { model: 'epsilon-4.7' });
    expect(failing.json).toMatchObject({ ok: false, model: 'epsilon-4.7', status: expect.any(Number), error: expect.any(String), reply: null });
    expect(failing.json.status).toBeGreaterThanOrEqual(500);

    const unreachable = await admin(gateway, 'POST', '/channels/remote/test');
    expect(unreachable.json).toMatchObject({ ok: false, status: expect.any(Number) });
    expect(unreachable.text).not.toContain('hunter2');

    expect((await admin(gateway, 'POST', '/channels/primary/test', { model: 'epsilon-4.7' })).status).toBe(400);
    expect((await admin(gateway, 'POST', '/channels/nope/test', {})).status).toBe(404);
  });

  it('refuses bad changes with a 400 and unknown channels with a 404, changing nothing', async () => {
    for (const body of [{}, { weight: 0 }, { weight: 1001 }, { priority: 1.5 }, { enabled: 'yes' }, { colour: 'red' }]) {
      const refused = await admin(gateway, 'PATCH', '/channels/primary', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      assertEnvelope('general', refused.json);
    }
    expect((await admin(gateway, 'PATCH', '/channels/nope', { enabled: false })).status).toBe(404);
    expect((await admin(gateway, 'GET', '/channels/primary')).json).toMatchObject({ enabled: true, weight: 1, priority: 0 });
  });

  it('answers 401 without the admin token or an operator session, and 403 to a key holder', async () => {
    const routes: Array<[string, string, unknown]> = [
      ['GET', '/admin/api/channels', undefined], ['GET', '/admin/api/channels/primary', undefined], ['PATCH', '/admin/api/channels/primary', { enabled: false }],
      ['POST', '/admin/api/channels/primary/test', {}], ['GET', '/admin/api/models', undefined],
    ];
    const user = await inviteUser(gateway, { name: 'Uma' });
    for (const [method, path, body] of routes) {
      expect((await call(gateway, method, path, body, {})).status, path).toBe(401);
      expect((await call(gateway, method, path, body, bearer(TEST_KEY))).status, path).toBe(401);
      expect((await consoleCall(gateway, method, path, body, { session: user.session })).status, path).toBe(403);
    }
    expect((await admin(gateway, 'GET', '/channels/primary')).json.enabled).toBe(true);
  });
});

describe('channel settings outlive a restart and reach every instance (issue 12)', () => {
  let database: TestDatabase;
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    first = await startTestGateway({ file: FILE, env: { databaseUrl: database.url } });
    second = await startTestGateway({ file: FILE, env: { databaseUrl: database.url } });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
  });

  it('a change made on one instance is applied on the other within the refresh interval, and by a restarted one at start', async () => {
    expect((await admin(first, 'PATCH', '/channels/primary', { enabled: false, weight: 3 })).status).toBe(200);
    let seen: { enabled: boolean; weight: number } | undefined;
    for (let waited = 0; waited < 8_000; waited += 250) {
      seen = (await admin(second, 'GET', '/channels/primary')).json;
      if (seen?.enabled === false) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(seen).toMatchObject({ enabled: false, weight: 3 });
    expect(await (chat(second).then(() => lastChannel(second)))).toBe('backup');

    await second.stop({ keepData: true });
    second = await startTestGateway({ file: FILE, dataDir: second.dataDir, env: { databaseUrl: database.url } });
    expect((await admin(second, 'GET', '/channels/primary')).json).toMatchObject({ enabled: false, weight: 3 });
  }, 20_000);
});
