import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, type ConsoleSession } from '../../helpers/console.js';
import { pollUntil } from '../../helpers/video.js';

const create = (gateway: TestGateway, secret = TEST_KEY) =>
  call(gateway, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'A cat opens a fan', images: ['https://example.com/ref-1.png'] }, bearer(secret));

describe('video task list (issue 12)', () => {
  let gateway: TestGateway;
  let ann: { session: ConsoleSession; id: string };
  let annKey: string;
  const operatorTasks: string[] = [];
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { simulator: { video_task_ms: 200 } } });
    ann = await inviteUser(gateway, { name: 'Ann' });
    annKey = (await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'ann-video' }, { session: ann.session })).json.key;
    for (let i = 0; i < 3; i++) operatorTasks.push((await create(gateway)).json.id);
  });
  afterAll(() => gateway.stop());

  it("lists every key's tasks for operators, newest first, with state, channel and, once done, the video's link", async () => {
    const annTask = (await create(gateway, annKey)).json.id;
    await pollUntil(gateway, `/v1/video/generations/${operatorTasks[0]}`, (task) => task.status === 'completed');
    const list = await admin(gateway, 'GET', '/tasks');
    expect(list.status, list.text).toBe(200);
    expect(list.json.data.map((t: { id: string }) => t.id)).toEqual([annTask, ...[...operatorTasks].reverse()]);
    const done = list.json.data.find((t: { id: string }) => t.id === operatorTasks[0]);
    expect(done).toMatchObject({ surface: 'video-generations', model: 'zeta-1.0-r2v', status: 'completed', progress: 100, channel: 'simulator-alibaba-dashscope', key_name: 'bootstrap', error: null });
    expect(done.result_url).toMatch(new RegExp(`^${gateway.url}/media/videos/[0-9a-f]{32}\\.mp4$`));
    expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    expect((await fetch(done.result_url)).status).toBe(200);
  });

  it('filters by status, key and model, and pages with a cursor', async () => {
    const completed = await admin(gateway, 'GET', '/tasks?status=completed');
    expect(completed.json.data.every((t: { status: string }) => t.status === 'completed')).toBe(true);
    const ids: string[] = [];
    let before: string | null = null;
    do {
      const page = await admin(gateway, 'GET', `/tasks?limit=1${before ? `&before=${encodeURIComponent(before)}` : ''}`);
      expect(page.status, page.text).toBe(200);
      ids.push(...page.json.data.map((t: { id: string }) => t.id));
      before = page.json.next_before;
    } while (before);
    expect(ids).toEqual((await admin(gateway, 'GET', '/tasks')).json.data.map((t: { id: string }) => t.id));
    expect((await admin(gateway, 'GET', '/tasks?model=happyhorse-1.0-r2v')).json.data).toHaveLength(0);
    for (const query of ['status=done', 'limit=0', 'before=abc', 'colour=red']) {
      const refused = await admin(gateway, 'GET', `/tasks?${query}`);
      expect(refused.status, query).toBe(400);
      assertEnvelope('general', refused.json);
    }
  });

  it("shows a key holder only their own keys' tasks, without channel names; 401 without a session", async () => {
    const mine = await consoleCall(gateway, 'GET', '/console/api/tasks', undefined, { session: ann.session });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.json.data).toHaveLength(1);
    expect(mine.json.data[0]).toMatchObject({ key_name: 'ann-video', channel: null });
    expect((await call(gateway, 'GET', '/console/api/tasks', undefined, {})).status).toBe(401);
    expect((await call(gateway, 'GET', '/admin/api/tasks', undefined, {})).status).toBe(401);
    expect((await consoleCall(gateway, 'GET', '/admin/api/tasks', undefined, { session: ann.session })).status).toBe(403);
  });
});
