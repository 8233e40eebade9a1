import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VideoTaskRepo, NOT_SUBMITTED } from '../../src/tasks/task-repo.js';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';
import { pollUntil } from '../helpers/video.js';

/**
 * Issue 13 item 12 and "disk full": a video task's row is written before the upstream is asked,
 * and the key's `external_task_id` is claimed by a unique index, not by a check-then-insert.
 */
const stores = [
  { name: 'SQLite', database: async (): Promise<TestDatabase | undefined> => undefined },
  { name: 'PostgreSQL', database: createTestDatabase },
];

describe.each(stores)('video task submission on $name', ({ database: makeDatabase }) => {
  let gateway: TestGateway;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await makeDatabase();
    gateway = await startTestGateway({ env: database ? { databaseUrl: database.url } : {}, file: { simulator: { video_task_ms: 200 } } });
  });
  afterAll(async () => {
    await gateway.stop();
    await database?.drop();
  });
  const submissions = () => gateway.deps.simulators.get('simulator-kling')!.requests.filter((r) => r.method === 'POST').length;

  it('20 parallel creations with one external_task_id make one task and one upstream submission', async () => {
    const before = submissions();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: `take ${i}`, external_task_id: 'order-race' })),
    );
    const created = answers.filter((a) => a.status === 200);
    expect(created).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(400);
      expect(refused.json.message).toContain("'external_task_id' 'order-race' is already used");
    }
    expect(submissions() - before).toBe(1);
    const rows = await gateway.deps.db.selectFrom('video_tasks').select('id').where('external_id', '=', 'order-race').execute();
    expect(rows.map((r) => r.id)).toEqual([created[0]!.json.data.task_id]);
    const done = await pollUntil(gateway, '/videoalt/v1/videos/order-race', (json) => json.data.task_status === 'succeed');
    expect(done.at(-1).data.task_id).toBe(created[0]!.json.data.task_id);
  });

  it('a row whose submission never finished (its instance died) is failed by the poller, never polled upstream', async () => {
    const repo = new VideoTaskRepo(gateway.deps.db);
    const key = await gateway.deps.keys.create({ name: 'orphan' });
    const now = Date.now();
    await repo.insert({
      id: 'asyntask_orphan', keyId: key.key.id, surface: 'video-generations', capability: null, model: 'zeta-1.0-r2v', channel: '',
      upstreamId: NOT_SUBMITTED, status: 'queued', progress: 0, request: {}, externalId: null, now: now - 700_000, nextPollAt: now - 1,
    });
    const answer = await pollUntil(gateway, '/v1/video/generations/asyntask_orphan', (json) => json.status === 'failed', {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(answer.at(-1).error).toMatchObject({ code: 'upstream_error' });
  });
});

describe('the row comes before the upstream call (fake Kling upstream)', () => {
  let gateway: TestGateway;
  let server: Server;
  const replies: Array<[number, Record<string, unknown>]> = [];
  const rowsSeenBySubmission: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        // What the gateway had stored when the upstream was asked.
        rowsSeenBySubmission.push((await gateway.deps.db.selectFrom('video_tasks').select('id').where('external_id', 'like', 'fake-%').execute()).length);
        const [status, body] = replies.shift() ?? [200, { code: 0, data: { task_id: `up-${Date.now()}`, task_status: 'submitted' } }];
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ request_id: 'up-1', ...body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    gateway = await startTestGateway({
      file: { channels: [{ name: 'kling-live', vendor: 'kling', base_url: url, access_key: 'ak', secret_key: 'sk', models: { 'kling-v1': 'kling-v1' }, max_retries: 0 }] },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    server.close();
  });
  const create = (externalId: string) => call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x', model_name: 'kling-v1', external_task_id: externalId });

  it('the upstream is asked only once the task row exists', async () => {
    const created = await create('fake-1');
    expect(created.status, created.text).toBe(200);
    expect(rowsSeenBySubmission.at(-1)).toBe(1);
  });

  it('a refused submission removes its row, so the external id can be used again', async () => {
    replies.push([400, { code: 1201, message: 'prompt is not allowed' }]);
    const refused = await create('fake-2');
    expect(refused.status).toBe(400);
    expect(rowsSeenBySubmission.at(-1)).toBe(2);
    expect(await gateway.deps.db.selectFrom('video_tasks').select('id').where('external_id', '=', 'fake-2').execute()).toEqual([]);
    const again = await create('fake-2');
    expect(again.status, again.text).toBe(200);
  });
});

describe('video task creation when the disk is full (SQLite)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { simulator: { video_task_ms: 200 } } });
  });
  afterAll(() => gateway.stop());

  it('answers 503 with Retry-After and never asks the upstream when the row cannot be written', async () => {
    const kling = gateway.deps.simulators.get('simulator-kling')!;
    const before = kling.requests.length;
    // Cap the file at its current size: the next page the database needs is refused (SQLITE_FULL).
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(gateway.deps.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(gateway.deps.db);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'p'.repeat(2400), external_task_id: `full-${i}` }));
    await sql.raw('pragma max_page_count = 1073741823').execute(gateway.deps.db);
    const failed = answers.filter((a) => a.status !== 200);
    expect(failed.length).toBeGreaterThan(0);
    for (const answer of failed) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
    }
    expect(kling.requests.length - before).toBe(answers.length - failed.length);
  });
});
