import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { fetchBytes, isMp4, pollUntil } from '../../helpers/video.js';

const IMAGE = 'https://example.com/ref-1.png';
const create = (gateway: TestGateway, body: Record<string, unknown> = {}) =>
  call(gateway, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'A cat opens a fan', images: [IMAGE], ...body });

describe('POST /v1/video/generations → GET task life (DashScope simulator)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { simulator: { video_task_ms: 300 } } });
  });
  afterAll(() => gateway.stop());

  const simulator = () => gateway.deps.simulators.get('simulator-alibaba-dashscope')!;

  it('answers the creation object of the spec and sends the DashScope async create', async () => {
    const before = Math.floor(Date.now() / 1000);
    const created = await create(gateway, {
      images: [IMAGE, 'https://example.com/ref-2.jpg'],
      resolution: '720P',
      duration: 5,
      parameters: { ratio: '9:16', watermark: false, seed: 42 },
    });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^asyntask_[0-9a-f]{24}$/),
      task_id: created.json.id,
      object: 'video',
      model: 'zeta-1.0-r2v',
      status: 'queued',
      progress: 0,
      created_at: expect.any(Number),
    });
    expect(created.json.created_at).toBeGreaterThanOrEqual(before);

    const sent = simulator().requests.find((r) => r.method === 'POST')!;
    expect(sent.path).toBe('/api/v1/services/aigc/video-generation/video-synthesis');
    expect(sent.headers['x-dashscope-async']).toBe('enable');
    expect(sent.headers.authorization).toBe('Bearer simulator-key');
    expect(sent.body).toEqual({
      model: 'happyhorse-1.0-r2v',
      input: {
        prompt: 'A cat opens a fan',
        media: [
          { type: 'reference_image', url: IMAGE },
          { type: 'reference_image', url: 'https://example.com/ref-2.jpg' },
        ],
      },
      parameters: { resolution: '720P', ratio: '9:16', duration: 5, watermark: false, seed: 42 },
    });
  });

  it('sends no parameters object when the client set none (DashScope defaults apply)', async () => {
    const created = await create(gateway);
    expect(created.status).toBe(200);
    const sent = simulator().requests.filter((r) => r.method === 'POST').at(-1)!;
    expect(sent.body).not.toHaveProperty('parameters');
  });

  it('completes through polling with a public video_url and /content, both real MP4s', async () => {
    const created = await create(gateway, { duration: 4 });
    const seen = await pollUntil(gateway, `/v1/video/generations/${created.json.id}`, (task) => task.status === 'completed' || task.status === 'failed');
    const done = seen.at(-1);
    expect(done).toMatchObject({ id: created.json.id, task_id: created.json.id, object: 'video', status: 'completed', progress: 100, error: null });
    expect(done.completed_at).toBeGreaterThanOrEqual(created.json.created_at);
    // The simulator's clip is 2 s, 720P 16:9: the upstream's report of the output wins over the request.
    expect(done).toMatchObject({ duration: 2, resolution: '720P', ratio: '16:9' });
    expect(done.video_url).toMatch(new RegExp(`^${gateway.url}/media/videos/[0-9a-f]{32}\\.mp4$`));
    const progresses = seen.map((t) => t.progress);
    expect(progresses).toEqual([...progresses].sort((a, b) => a - b));

    const poll = simulator().requests.find((r) => r.method === 'GET' && r.path.startsWith('/api/v1/tasks/'))!;
    expect(poll.headers.authorization).toBe('Bearer simulator-key');

    const publicFile = await fetchBytes(done.video_url);
    expect(publicFile.status).toBe(200);
    expect(publicFile.type).toBe('video/mp4');
    expect(isMp4(publicFile.bytes)).toBe(true);

    const content = await fetchBytes(`${gateway.url}/v1/video/generations/${created.json.id}/content`, { authorization: `Bearer ${TEST_KEY}` });
    expect(content.status).toBe(200);
    expect(isMp4(content.bytes)).toBe(true);
    expect(content.bytes.length).toBe(publicFile.bytes.length);

    const ranged = await fetch(done.video_url, { headers: { range: 'bytes=0-7' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).subarray(4, 8).toString('latin1')).toBe('ftyp');

    const noKey = await call(gateway, 'GET', `/v1/video/generations/${created.json.id}/content`, undefined, {});
    expect(noKey.status).toBe(401);

    // The generated seconds are accounted once, under the task id.
    await gateway.deps.usage.flush();
    const events = await gateway.deps.db.selectFrom('usage_events').selectAll().where('request_id', '=', created.json.id).execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ family: 'video-generations', model: 'zeta-1.0-r2v', outcome: 'video_completed', video_seconds: 2 });
  });

  it('moves queued → in_progress with rising progress → completed', async () => {
    simulator().setOptions({ video_task_ms: 2_200 });
    try {
      const created = await create(gateway);
      const seen = await pollUntil(gateway, `/v1/video/generations/${created.json.id}`, (task) => task.status === 'completed', { intervalMs: 150 });
      const statuses = [...new Set(seen.map((t) => t.status))];
      expect(statuses).toEqual(['queued', 'in_progress', 'completed']);
      const running = seen.filter((t) => t.status === 'in_progress');
      expect(running[0].progress).toBeGreaterThan(0);
      expect(running[0].progress).toBeLessThan(100);
      expect(running.every((t) => t.video_url === null && t.completed_at === null)).toBe(true);
      expect(seen.at(-1).progress).toBe(100);
    } finally {
      simulator().setOptions({ video_task_ms: 300 });
    }
  });

  it('reports a failed task with error {code, message}', async () => {
    const created = await create(gateway, { prompt: 'This one breaks [[sim:fail]]' });
    const seen = await pollUntil(gateway, `/v1/video/generations/${created.json.id}`, (task) => task.status !== 'queued' && task.status !== 'in_progress');
    const failed = seen.at(-1);
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({ code: 'generation_failed', message: expect.stringContaining('simulated task failed') });
    expect(failed.video_url).toBeNull();
    const content = await call(gateway, 'GET', `/v1/video/generations/${created.json.id}/content`);
    expect(content.status).toBe(400);
    expect(content.json.error.code).toBe('invalid_parameter');
  });

  it("hides another key's task behind a 404 in the general envelope", async () => {
    const created = await create(gateway);
    const { secret } = await gateway.deps.keys.create({ name: 'other' });
    for (const path of [`/v1/video/generations/${created.json.id}`, `/v1/video/generations/${created.json.id}/content`]) {
      const other = await call(gateway, 'GET', path, undefined, { authorization: `Bearer ${secret}` });
      expect(other.status).toBe(404);
      expect(other.json).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', code: 'not_found' } });
    }
    const unknown = await call(gateway, 'GET', '/v1/video/generations/asyntask_000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect((await call(gateway, 'GET', '/media/videos/0123456789abcdef0123456789abcdef.mp4', undefined, {})).status).toBe(404);
    expect((await call(gateway, 'GET', '/media/videos/..%2Fgateway.sqlite', undefined, {})).status).toBe(404);
  });

  it('maps upstream errors through the DashScope translator (429 stays 429, bad key is 502)', async () => {
    simulator().setOptions({ video_task_ms: 300, fault_status: 429, fault_times: 1 });
    const limited = await create(gateway);
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatchObject({ type: 'rate_limit_error', code: 'upstream_rate_limited' });
    simulator().setOptions({ video_task_ms: 300, fault_status: 401, fault_times: 1 });
    const rejected = await create(gateway);
    expect(rejected.status).toBe(502);
    expect(rejected.json.error.code).toBe('upstream_auth_failed');
    expect(rejected.text).not.toContain('127.0.0.1');
    simulator().setOptions({ video_task_ms: 300 });
  });
});

describe('video tasks survive a gateway restart', () => {
  it('completes a task created before the restart, polled through the new simulator', async () => {
    const file = { simulator: { video_task_ms: 600 } };
    const first = await startTestGateway({ file });
    const created = await create(first);
    expect(created.status).toBe(200);
    await first.stop({ keepData: true });

    const second = await startTestGateway({ file, dataDir: first.dataDir });
    try {
      const seen = await pollUntil(second, `/v1/video/generations/${created.json.id}`, (task) => task.status === 'completed');
      expect(seen.at(-1).video_url).toMatch(new RegExp(`^${second.url}/media/videos/`));
      const polls = second.deps.simulators.get('simulator-alibaba-dashscope')!.requests.filter((r) => r.path.startsWith('/api/v1/tasks/'));
      expect(polls.length).toBeGreaterThan(0);
      expect(isMp4((await fetchBytes(seen.at(-1).video_url)).bytes)).toBe(true);
    } finally {
      await second.stop();
    }
  });
});
