import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, eventually, type TestDatabase } from '../helpers/services.js';
import { admin } from '../helpers/admin.js';
import { fetchBytes, isMp4, pollUntil } from '../helpers/video.js';

const chat = (gateway: TestGateway, key = TEST_KEY, model = 'delta-4.1') =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hello' }] }, { authorization: `Bearer ${key}` });

/** The core API on PostgreSQL (DATABASE_URL): the same behaviour as on the embedded SQLite. */
describe('one gateway on PostgreSQL', () => {
  let database: TestDatabase;
  let gateway: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await startTestGateway({ env: { databaseUrl: database.url }, file: { simulator: { video_task_ms: 300 } } });
  });
  afterAll(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it('ran every migration at start-up into PostgreSQL, and no SQLite file was made', async () => {
    const migrations = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
    expect(migrations.rows.map((r) => r.name)).toEqual(expect.arrayContaining(['0001-initial', '0002-video-task-polls']));
    const tables = await database.db.introspection.getTables();
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['api_keys', 'settings', 'video_tasks', 'assets', 'usage_events']));
    expect(existsSync(join(gateway.dataDir, 'gateway.sqlite'))).toBe(false);
  });

  it('keeps SQLite column meanings: 64-bit integers, identity ids, no length limits', async () => {
    const columns = await sql<{ table_name: string; column_name: string; data_type: string; is_identity: string }>`
      select table_name, column_name, data_type, is_identity from information_schema.columns where table_schema = 'public'`.execute(database.db);
    const type = (table: string, column: string) => columns.rows.find((c) => c.table_name === table && c.column_name === column);
    expect(type('usage_events', 'id')).toMatchObject({ data_type: 'bigint', is_identity: 'YES' });
    expect(type('usage_events', 'prompt_tokens')?.data_type).toBe('bigint');
    expect(type('usage_events', 'model')?.data_type).toBe('text');
    expect(type('api_keys', 'created_at')?.data_type).toBe('bigint');
    expect(type('usage_events', 'cost_usd')?.data_type).toBe('double precision');
  });

  it('authenticates, enforces a key’s models and refuses it once revoked', async () => {
    expect((await chat(gateway)).status).toBe(200);
    const { key, secret } = await gateway.deps.keys.create({ name: 'pg-limited', models: ['delta-4.1'] });
    expect(typeof key.createdAt).toBe('number');
    expect((await chat(gateway, secret)).status).toBe(200);
    expect((await chat(gateway, secret, 'epsilon-4.7')).status).toBe(403);
    expect((await gateway.deps.keys.get(key.id))?.createdAt).toBe(key.createdAt);
    expect(await gateway.deps.keys.revoke(key.id)).toBe(true);
    const refused = await chat(gateway, secret);
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe('invalid_api_key');
    expect((await gateway.deps.keys.list()).find((k) => k.id === key.id)?.revokedAt).toEqual(expect.any(Number));
  });

  it('writes a usage event per request, read back with numbers where SQLite gives numbers', async () => {
    const lookup = await gateway.deps.keys.authenticate(TEST_KEY);
    const keyId = lookup.status === 'ok' ? lookup.key.id : '';
    const before = Date.now();
    const response = await chat(gateway);
    expect(response.status).toBe(200);
    // Recorded when the connection closes, which can be just after the client has the body.
    const event = await eventually(async () => {
      await gateway.deps.usage.flush();
      return database.db.selectFrom('usage_events').selectAll().where('created_at', '>=', before).where('key_id', '=', keyId).where('status', '=', 200).executeTakeFirst();
    });
    expect(event).toMatchObject({
      model: 'delta-4.1',
      family: 'chat-completions',
      status: 200,
      outcome: 'success',
      prompt_tokens: response.json.usage.prompt_tokens,
      completion_tokens: response.json.usage.completion_tokens,
    });
    expect(typeof event.id).toBe('number');
    expect(typeof event.created_at).toBe('number');
    const { count } = await database.db.selectFrom('usage_events').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    expect(count).toBeGreaterThanOrEqual(1);
  });

  it('takes values SQLite always took: a 300-character model name on a usage event', async () => {
    const model = 'm'.repeat(300);
    gateway.deps.usage.record({ request_id: 'req_long_model', key_id: null, model, channel: null, family: 'generate-content', status: 400, outcome: 'error', prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0, latency_ms: 1, ttft_ms: null, created_at: Date.now() });
    await gateway.deps.usage.flush();
    const row = await database.db.selectFrom('usage_events').select('model').where('request_id', '=', 'req_long_model').executeTakeFirstOrThrow();
    expect(row.model).toBe(model);
  });

  it('runs a video task through polling to a downloadable result', async () => {
    const created = await call(gateway, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'A cat opens a fan', images: ['https://example.com/ref.png'] });
    expect(created.status, created.text).toBe(200);
    const seen = await pollUntil(gateway, `/v1/video/generations/${created.json.id}`, (task) => task.status === 'completed' || task.status === 'failed');
    const done = seen.at(-1);
    expect(done).toMatchObject({ id: created.json.id, status: 'completed', progress: 100, duration: 2 });
    expect(done.completed_at).toBeGreaterThanOrEqual(created.json.created_at);
    const file = await fetchBytes(done.video_url);
    expect(file.status).toBe(200);
    expect(isMp4(file.bytes)).toBe(true);
    const row = await database.db.selectFrom('video_tasks').selectAll().where('id', '=', created.json.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'completed', lease_owner: null, lease_until: null, charged: 1 });
    expect(typeof row.completed_at).toBe('number');
  });

  it('creates, lists and deletes an asset with its uploaded bytes', async () => {
    const data = Buffer.from('\x89PNG\r\n\x1a\n-asset-bytes', 'latin1').toString('base64');
    const created = await call(gateway, 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', AssetType: 'Image', Data: data, MimeType: 'image/png', Name: 'pg' });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ Name: 'pg', Size: Buffer.from(data, 'base64').length, Status: 'Active' });
    const id = created.json.Id;
    expect(existsSync(join(gateway.dataDir, 'assets', id))).toBe(true);
    const listed = await call(gateway, 'POST', '/cloud/asset/ListAssets', { model: 'cloud-asset' });
    expect(listed.status, listed.text).toBe(200);
    expect(JSON.stringify(listed.json)).toContain(id);
    const deleted = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: id });
    expect(deleted.json).toEqual({ Id: id, Deleted: true });
    expect(existsSync(join(gateway.dataDir, 'assets', id))).toBe(false);
    expect((await call(gateway, 'POST', '/cloud/asset/GetAsset', { model: 'cloud-asset', Id: id })).status).toBe(404);
  });

  it('serves the request log, a request in full, the task list and channel settings from PostgreSQL (issue 12)', async () => {
    const traced = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'logged' }] }, { authorization: `Bearer ${TEST_KEY}`, 'x-request-id': 'pg-logged' });
    expect(traced.status).toBe(200);
    const page = await admin(gateway, 'GET', '/requests?request_id=pg-logged');
    expect(page.status, page.text).toBe(200);
    expect(page.json.data).toHaveLength(1);
    expect(page.json.data[0]).toMatchObject({ status: 200, model: 'delta-4.1', retries: 0, total_tokens: traced.json.usage.total_tokens });
    const detail = await admin(gateway, 'GET', `/requests/${page.json.data[0].id}`);
    expect(detail.json.request_headers.authorization).toBe('Bearer [masked]');
    const paged = await admin(gateway, 'GET', '/requests?status=success&limit=1');
    expect(paged.json.next_before).toMatch(/^\d+$/);
    expect((await admin(gateway, 'GET', `/requests?limit=1&before=${paged.json.next_before}`)).json.data[0].id).not.toBe(paged.json.data[0].id);
    const tasks = await admin(gateway, 'GET', '/tasks?limit=1');
    expect(tasks.status, tasks.text).toBe(200);
    expect(tasks.json.data).toHaveLength(1);
    expect((await admin(gateway, 'PATCH', '/channels/simulator-openai', { weight: 5 })).json).toMatchObject({ weight: 5, overridden: true });
    expect((await admin(gateway, 'PATCH', '/channels/simulator-openai', { weight: null })).json).toMatchObject({ weight: 1, overridden: false });
  });

  it('reports ready while PostgreSQL answers', async () => {
    const ready = await call(gateway, 'GET', '/readyz', undefined, {});
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready' });
  });

  it('starts again on the same database: nothing left to migrate, keys kept', async () => {
    const { secret } = await gateway.deps.keys.create({ name: 'survives-restart' });
    await gateway.stop({ keepData: true });
    gateway = await startTestGateway({ dataDir: gateway.dataDir, env: { databaseUrl: database.url }, file: { simulator: { video_task_ms: 300 } } });
    expect((await chat(gateway, secret)).status).toBe(200);
  });
});
