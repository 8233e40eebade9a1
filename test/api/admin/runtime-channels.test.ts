import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin } from '../../helpers/admin.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';
import { openaiSimulator } from '../../../src/providers/openai/simulator.js';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/server.js';
import { SECRET_KEY_FILE } from '../../../src/keys/secret-box.js';
import type { FileConfig } from '../../../src/config/schema.js';

const SECRET = 'sk-live-upstream-secret-9f3a7c1e5d2b';
const chat = (gateway: { url: string }, model: string) => call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
const FILE: FileConfig = { channels: [{ name: 'from-file', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' }, weight: 2 }] };

/** Waits until `check` holds (another instance picks changes up within seconds). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 10_000): Promise<T> {
  let value = await read();
  for (let waited = 0; !check(value) && waited < ms; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

describe('channels added, changed and removed at runtime (issue 21)', () => {
  let gateway: TestGateway;
  let upstream: RunningSimulator;
  beforeAll(async () => {
    upstream = await startSimulator(openaiSimulator);
    gateway = await startTestGateway({ file: FILE });
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.close();
  });

  it('adds a vendor account and a model at runtime; traffic flows at once; the credential is sealed, masked and sent upstream', async () => {
    expect((await admin(gateway, 'POST', '/models', { id: 'house-model', kind: 'chat', price: { prompt_per_1m: 1, completion_per_1m: 4 } })).status).toBe(201);
    expect((await chat(gateway, 'house-model')).status).toBe(400);
    const created = await admin(gateway, 'POST', '/channels', {
      name: 'acme-openai', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: SECRET, models: { 'house-model': 'gpt-4o-mini' },
      headers: { 'x-org': 'org-secret-header-77' }, timeouts: { first_byte_ms: 30_000 }, max_retries: 1,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ id: 'acme-openai', source: 'runtime', runtime_override: false, model_map: { 'house-model': 'gpt-4o-mini' }, credentials: { api_key: '••••7c1e'.replace('7c1e', SECRET.slice(-4)) }, max_retries: 1 });
    expect(created.json.timeouts.first_byte_ms).toBe(30_000);
    expect(created.text).not.toContain(SECRET);
    expect(created.text).not.toContain('org-secret-header-77');

    const answered = await new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1` }).chat.completions.create({ model: 'house-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(answered.model).toBe('house-model');
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.headers['x-org']).toBe('org-secret-header-77');
    expect((sent.body as { model: string }).model).toBe('gpt-4o-mini');
    // Billed at the operator's price, on the runtime channel (the 400 before it is logged under the model asked for, unbilled).
    await gateway.deps.usage.flush();
    const events = await gateway.deps.db.selectFrom('usage_events').selectAll().where('model', '=', 'house-model').orderBy('id').execute();
    expect(events.map((e) => [e.status, e.cost_usd])).toEqual([[400, 0], [200, expect.any(Number)]]);
    const event = events[1]!;
    expect(event.channel).toBe('acme-openai');
    expect(event.cost_usd).toBeCloseTo((event.prompt_tokens * 1 + event.completion_tokens * 4) / 1e6, 12);

    // At rest: sealed (AES-256-GCM), never in clear; the generated key is the data directory's, mode 0600.
    const row = await gateway.deps.db.selectFrom('runtime_channels').selectAll().where('name', '=', 'acme-openai').executeTakeFirstOrThrow();
    expect(row.definition).not.toContain(SECRET);
    expect(row.secrets).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(row.secrets).not.toContain(SECRET);
    expect(row.secrets).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 12));
    const keyFile = join(gateway.dataDir, SECRET_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toHaveLength(32);
    // Never returned by any API.
    for (const path of ['/channels', '/channels/acme-openai', '/models', '/models/house-model']) expect((await admin(gateway, 'GET', path)).text).not.toContain(SECRET);
  });

  it('changes a runtime channel (model map, credential, settings) and removes it', async () => {
    const changed = await admin(gateway, 'PATCH', '/channels/acme-openai', { models: { 'house-model': 'gpt-4.1', 'gpt-5-mini': 'gpt-5-mini' }, api_key: 'sk-rotated-0000', weight: 5 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({ model_map: { 'house-model': 'gpt-4.1', 'gpt-5-mini': 'gpt-5-mini' }, credentials: { api_key: '••••0000' }, weight: 5 });
    expect((await chat(gateway, 'gpt-5-mini')).status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-rotated-0000');
    const noHeaders = await admin(gateway, 'PATCH', '/channels/acme-openai', { headers: null });
    expect(Object.keys(noHeaders.json.headers)).not.toContain('x-org');

    // A model in use cannot go; the channel can.
    expect((await admin(gateway, 'DELETE', '/models/house-model')).status).toBe(409);
    expect((await admin(gateway, 'DELETE', '/channels/acme-openai')).status).toBe(204);
    expect((await admin(gateway, 'GET', '/channels/acme-openai')).status).toBe(404);
    expect((await chat(gateway, 'house-model')).status).toBe(400);
    expect(await gateway.deps.db.selectFrom('runtime_channels').selectAll().execute()).toEqual([]);
  });

  it('a file channel changed at runtime keeps the file\'s other fields; DELETE puts the file back; the file\'s own channel cannot be deleted', async () => {
    const overridden = await admin(gateway, 'PATCH', '/channels/from-file', { base_url: `${upstream.url}/v1`, api_key: SECRET });
    expect(overridden.json).toMatchObject({ source: 'file', runtime_override: true, simulator: false, weight: 2, model_map: { 'delta-4.1': 'gpt-4.1' } });
    const before = upstream.requests.length;
    expect((await chat(gateway, 'delta-4.1')).status).toBe(200);
    expect(upstream.requests.length).toBe(before + 1);
    const reset = await admin(gateway, 'DELETE', '/channels/from-file');
    expect(reset.status).toBe(200);
    expect(reset.json).toMatchObject({ source: 'file', runtime_override: false, simulator: true });
    expect((await admin(gateway, 'DELETE', '/channels/from-file')).status).toBe(409);
    expect((await admin(gateway, 'DELETE', '/channels/simulator-anthropic')).status).toBe(409);
    expect((await admin(gateway, 'PATCH', '/channels/simulator-anthropic', { base_url: 'http://127.0.0.1:9' })).status).toBe(400);
  });

  it.each([
    [{ name: 'x', vendor: 'openai', models: { 'no-such-model': 'y' } }, 400, 'models.no-such-model'],
    [{ name: 'from-file', vendor: 'openai', models: {} }, 409, 'exists already'],
    [{ name: 'simulator-openai2', vendor: 'openai', models: {} }, 400, 'name'],
    [{ name: 'x', vendor: 'acme', models: {} }, 400, 'vendor'],
    [{ name: 'x', vendor: 'anthropic', base_url: 'https://api.anthropic.com/v1', models: {} }, 400, 'base_url'],
    [{ name: 'x', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' }, prices: { 'gpt-5': { prompt_per_1m: 1 } } }, 400, 'prices.gpt-5'],
    [{ name: 'x', vendor: 'openai', models: {}, api_key: 5 }, 400, 'api_key'],
  ])('refuses %j with %i naming %s', async (body, status, text) => {
    const refused = await admin(gateway, 'POST', '/channels', body);
    expect(refused.status).toBe(status);
    expect(refused.json.error.message).toContain(text);
  });
});

describe('runtime channels on PostgreSQL: every instance, a shared key, rotation (issue 21)', () => {
  let database: TestDatabase;
  let upstream: RunningSimulator;
  const first = { gateway: undefined as TestGateway | undefined };
  const key1 = randomBytes(32).toString('base64');
  const key2 = randomBytes(32).toString('hex');
  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await startSimulator(openaiSimulator);
  });
  afterAll(async () => {
    await first.gateway?.stop();
    await upstream.close();
    await database.drop();
  });

  it('a channel and model added on one instance serve traffic on the other within seconds, no restart', async () => {
    const a = await startTestGateway({ env: { databaseUrl: database.url, secretKey: key1 } });
    const b = await startTestGateway({ env: { databaseUrl: database.url, secretKey: key1 } });
    try {
      expect((await admin(a, 'POST', '/models', { id: 'shared-model', kind: 'chat' })).status).toBe(201);
      expect((await admin(a, 'POST', '/channels', { name: 'shared', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: SECRET, models: { 'shared-model': 'gpt-4o-mini' } })).status).toBe(201);
      const served = await eventually(() => chat(b, 'shared-model'), (response) => response.status === 200);
      expect(served.status, served.text).toBe(200);
      expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect((await call(b, 'GET', '/v1/models')).json.data.map((m: { id: string }) => m.id)).toContain('shared-model');
      // A price set on one instance bills on the other.
      expect((await admin(a, 'PATCH', '/models/shared-model', { price: { prompt_per_1m: 100 } })).status).toBe(200);
      const priced = await eventually(() => admin(b, 'GET', '/models/shared-model'), (response) => response.json.price?.prompt_per_1m === 100);
      expect(priced.json.price_source).toBe('operator');
      // Removed on b: gone from a.
      expect((await admin(b, 'DELETE', '/channels/shared')).status).toBe(204);
      const gone = await eventually(() => chat(a, 'shared-model'), (response) => response.status === 400);
      expect(gone.status).toBe(400);
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 30_000);

  it('issue 34: a running instance without the key that sealed a new channel serves nothing for its models and is not ready, until it is gone', async () => {
    const a = await startTestGateway({ env: { databaseUrl: database.url, secretKey: key1 } });
    const b = await startTestGateway({ env: { databaseUrl: database.url, secretKey: key2 } });
    try {
      expect((await admin(a, 'POST', '/channels', { name: 'other-key', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: SECRET, models: { 'delta-4.1': 'gpt-4.1' } })).status).toBe(201);
      const ready = await eventually(() => fetch(`${b.url}/readyz`), (response) => response.status === 503);
      expect(await ready.json()).toMatchObject({ status: 'unavailable', channels: ['other-key'] });
      const answer = await chat(b, 'delta-4.1');
      expect(answer.status).not.toBe(200);
      expect(answer.text).not.toContain('simulated');
      expect((await admin(a, 'DELETE', '/channels/other-key')).status).toBe(204);
      expect((await eventually(() => fetch(`${b.url}/readyz`), (response) => response.status === 200)).status).toBe(200);
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 30_000);

  it('without GATEWAY_SECRET_KEY on a shared store credentials are refused with what to set; the key rotates on restart', async () => {
    const keyless = await startTestGateway({ env: { databaseUrl: database.url } });
    try {
      const refused = await admin(keyless, 'POST', '/channels', { name: 'nokey', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: SECRET, models: {} });
      expect(refused.status).toBe(409);
      expect(refused.json.error.message).toContain('GATEWAY_SECRET_KEY');
      // A channel without credentials needs no key.
      expect((await admin(keyless, 'POST', '/channels', { name: 'open', vendor: 'openai', base_url: `${upstream.url}/v1`, models: { 'delta-4.1': 'gpt-4.1' } })).status).toBe(201);
      expect((await admin(keyless, 'DELETE', '/channels/open')).status).toBe(204);
    } finally {
      await keyless.stop();
    }

    const old = await startTestGateway({ env: { databaseUrl: database.url, secretKey: key1 } });
    expect((await admin(old, 'POST', '/channels', { name: 'rotating', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: SECRET, models: { 'delta-4.1': 'gpt-4.1' } })).status).toBe(201);
    const sealedBefore = (await old.deps.db.selectFrom('runtime_channels').select('secrets').where('name', '=', 'rotating').executeTakeFirstOrThrow()).secrets!;
    await old.stop();

    // The new key with the previous one: re-sealed at start, still served.
    const rotated = await startTestGateway({ env: { databaseUrl: database.url, secretKey: key2, secretKeyPrevious: key1 } });
    const sealedAfter = (await rotated.deps.db.selectFrom('runtime_channels').select('secrets').where('name', '=', 'rotating').executeTakeFirstOrThrow()).secrets!;
    expect(sealedAfter.split(':')[1]).not.toBe(sealedBefore.split(':')[1]);
    await rotated.stop();
    // The previous key can go.
    first.gateway = await startTestGateway({ env: { databaseUrl: database.url, secretKey: key2 } });
    expect((await chat(first.gateway, 'delta-4.1')).status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    // A wrong key stops the start, naming the channel and both keys (issue 34: it used to leave the channel out silently).
    await expect(startTestGateway({ env: { databaseUrl: database.url, secretKey: key1 } })).rejects.toThrow(/'rotating' \(sealed with key [0-9a-f]{8}\).*this instance's key is [0-9a-f]{8}/);
  }, 30_000);

  it('a malformed GATEWAY_SECRET_KEY stops the start with what to set', async () => {
    await expect(startTestGateway({ env: { databaseUrl: database.url, secretKey: 'too-short' } })).rejects.toThrow(/GATEWAY_SECRET_KEY must be 32 random bytes/);
  });
});
