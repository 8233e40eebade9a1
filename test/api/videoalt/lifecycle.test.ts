import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { fetchBytes, isMp4, pollUntil } from '../../helpers/video.js';

const BODIES = {
  text2video: { model_name: 'kling-v2-6', prompt: 'A rabbit reading a newspaper', negative_prompt: '', duration: '5', mode: 'pro', sound: 'on', aspect_ratio: '1:1' },
  image2video: { model_name: 'kling-v2-1', image: 'https://example.com/first.png', prompt: 'The cat waves', cfg_scale: 0.5, duration: '10' },
  'multi-image2video': { image_list: [{ image: 'https://example.com/a.png' }, { image: 'https://example.com/b.png' }], prompt: 'Both meet', duration: '5', aspect_ratio: '16:9' },
} as const;
type Capability = keyof typeof BODIES;
const CAPABILITIES = Object.keys(BODIES) as Capability[];

const isFinished = (json: any) => json.data.task_status === 'succeed' || json.data.task_status === 'failed';

describe('/videoalt Kling-native task life (Kling simulator)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { simulator: { video_task_ms: 300 } } });
  });
  afterAll(() => gateway.stop());

  const simulator = () => gateway.deps.simulators.get('simulator-kling')!;

  it.each(CAPABILITIES)('%s: creates with a signed JWT and succeeds through both query forms', async (capability) => {
    const created = await call(gateway, 'POST', `/videoalt/v1/videos/${capability}`, BODIES[capability]);
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({
      code: 0,
      message: 'SUCCEED',
      request_id: expect.any(String),
      data: { task_id: expect.stringMatching(/^\d{19}$/), task_status: 'submitted', task_info: {}, created_at: expect.any(Number), updated_at: expect.any(Number) },
    });
    expect(created.json.data.created_at).toBeGreaterThan(1_600_000_000_000); // milliseconds

    const sent = simulator().requests.filter((r) => r.method === 'POST').at(-1)!;
    expect(sent.path).toBe(`/v1/videos/${capability}`);
    // Kling's documented default becomes explicit so the channel's model mapping applies.
    expect(sent.body).toEqual({ ...BODIES[capability], model_name: 'model_name' in BODIES[capability] ? (BODIES[capability] as { model_name: string }).model_name : 'kling-v1-6' });
    const [header, payload, signature] = sent.headers.authorization!.replace(/^Bearer /, '').split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims.iss).toBe('simulator-ak');
    expect(claims.exp - claims.nbf).toBe(1805);
    expect(signature).toBe(createHmac('sha256', 'simulator-sk').update(`${header}.${payload}`).digest('base64url'));

    const id = created.json.data.task_id;
    const seen = await pollUntil(gateway, `/videoalt/v1/videos/${id}`, isFinished);
    const done = seen.at(-1).data;
    expect(done).toMatchObject({ task_id: id, task_status: 'succeed', task_status_msg: '', task_info: {} });
    expect(done.task_result.videos).toEqual([{ id: expect.any(String), url: expect.stringMatching(new RegExp(`^${gateway.url}/media/videos/[0-9a-f]{32}\\.mp4$`)), duration: '2' }]);
    expect(done.updated_at).toBeGreaterThanOrEqual(done.created_at);
    expect(seen.every((s) => ['submitted', 'processing', 'succeed'].includes(s.data.task_status))).toBe(true);

    const native = await call(gateway, 'GET', `/videoalt/v1/videos/${capability}/${id}`);
    expect(native.status).toBe(200);
    expect(native.json.data).toEqual(done);
    const polls = simulator().requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/videos/'));
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((r) => r.path.startsWith(`/v1/videos/${capability}/`) || !r.path.endsWith(id))).toBe(true);
    expect(polls.some((r) => r.path.startsWith(`/v1/videos/${capability}/`))).toBe(true);

    const file = await fetchBytes(done.task_result.videos[0].url);
    expect(file.status).toBe(200);
    expect(isMp4(file.bytes)).toBe(true);
  });

  it('answers the native query under another capability with 404 in the Kling envelope', async () => {
    const created = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x' });
    const wrong = await call(gateway, 'GET', `/videoalt/v1/videos/image2video/${created.json.data.task_id}`);
    expect(wrong.status).toBe(404);
    expect(wrong.json).toEqual({ code: 1203, message: expect.any(String), request_id: expect.any(String) });
    const unknownCapability = await call(gateway, 'GET', `/videoalt/v1/videos/text2image/${created.json.data.task_id}`);
    expect(unknownCapability.status).toBe(404);
  });

  it('reports a failed task with task_status_msg', async () => {
    const created = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'break it [[sim:fail]]' });
    const seen = await pollUntil(gateway, `/videoalt/v1/videos/${created.json.data.task_id}`, isFinished);
    const failed = seen.at(-1).data;
    expect(failed.task_status).toBe('failed');
    expect(failed.task_status_msg).toContain('simulated task failed');
    expect(failed).not.toHaveProperty('task_result');
  });

  it('keeps external_task_id with the gateway: echoed, queryable, unique per key, not forwarded', async () => {
    const created = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x', external_task_id: 'order-17' });
    expect(created.json.data.task_info).toEqual({ external_task_id: 'order-17' });
    expect(simulator().requests.filter((r) => r.method === 'POST').at(-1)!.body).not.toHaveProperty('external_task_id');
    const byExternal = await call(gateway, 'GET', '/videoalt/v1/videos/order-17');
    expect(byExternal.status).toBe(200);
    expect(byExternal.json.data.task_id).toBe(created.json.data.task_id);
    const again = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'y', external_task_id: 'order-17' });
    expect(again.status).toBe(400);
    expect(again.json.code).toBe(1200);
  });

  it('lists a key\'s tasks of one capability, newest first, paged as Kling does (issue 14)', async () => {
    const { secret } = await gateway.deps.keys.create({ name: 'lister' });
    const as = { authorization: `Bearer ${secret}` };
    const ids: string[] = [];
    for (const prompt of ['one', 'two', 'three']) ids.push((await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt }, as)).json.data.task_id);
    await call(gateway, 'POST', '/videoalt/v1/videos/image2video', BODIES.image2video, as);
    const all = await call(gateway, 'GET', '/videoalt/v1/videos/text2video', undefined, as);
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ code: 0, message: 'SUCCEED' });
    expect(all.json.data.map((t: { task_id: string }) => t.task_id)).toEqual([...ids].reverse());
    const page = await call(gateway, 'GET', '/videoalt/v1/videos/text2video?pageNum=2&pageSize=2', undefined, as);
    expect(page.json.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[0]]);
    const tooBig = await call(gateway, 'GET', '/videoalt/v1/videos/text2video?pageSize=501', undefined, as);
    expect(tooBig.status).toBe(400);
    expect(tooBig.json.code).toBe(1200);
    // Another key's list holds none of these.
    const mine = await call(gateway, 'GET', '/videoalt/v1/videos/text2video');
    expect(mine.json.data.map((t: { task_id: string }) => t.task_id)).not.toContain(ids[0]);
  });

  it("hides another key's task (404) and wants a key (401), both in the Kling envelope", async () => {
    const created = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x' });
    const { secret } = await gateway.deps.keys.create({ name: 'other' });
    const other = await call(gateway, 'GET', `/videoalt/v1/videos/${created.json.data.task_id}`, undefined, { authorization: `Bearer ${secret}` });
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ code: 1203, message: expect.any(String), request_id: expect.any(String) });
    const noKey = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x' }, {});
    expect(noKey.status).toBe(401);
    expect(noKey.json).toEqual({ code: 1000, message: expect.any(String), request_id: expect.any(String) });
  });

  it('maps a Kling rate-limit error (1303) to 429 without leaking the upstream body', async () => {
    simulator().setOptions({ video_task_ms: 300, fault_status: 429, fault_times: 1 });
    try {
      const limited = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x' });
      expect(limited.status).toBe(429);
      expect(limited.json).toEqual({ code: 1302, message: expect.any(String), request_id: expect.any(String) });
    } finally {
      simulator().setOptions({ video_task_ms: 300 });
    }
  });
});
