import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { consoleCall, inviteUser, type ConsoleSession } from '../../helpers/console.js';

const chat = (gateway: TestGateway, secret: string, model: string) =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(secret));

describe('keys search and pages, usage by user × model, CSV names (issue 22)', () => {
  let gateway: TestGateway;
  let ann: { session: ConsoleSession; id: string; email: string };
  let annKey: { id: string; key: string };
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
    ann = await inviteUser(gateway, { name: 'Ann' });
    const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'Ann Laptop' }, { session: ann.session });
    expect(created.status, created.text).toBe(201);
    annKey = { id: created.json.id, key: created.json.key };
    for (const name of ['build-server-1', 'build-server-2', 'Build_Server_3', 'staging', 'per%cent']) await createKey(gateway, { name });
  });
  afterAll(() => gateway.stop());

  it('searches key names case-insensitively (a % or _ is a plain character) and pages with a total', async () => {
    const found = await admin(gateway, 'GET', '/keys?q=BUILD-server&limit=1');
    expect(found.status, found.text).toBe(200);
    expect(found.json).toMatchObject({ total: 2, next_offset: 1 });
    expect(found.json.data.map((k: { name: string }) => k.name)).toEqual(['build-server-1']);
    const second = await admin(gateway, 'GET', '/keys?q=BUILD-server&limit=1&offset=1');
    expect(second.json).toMatchObject({ total: 2, next_offset: null });
    expect(second.json.data.map((k: { name: string }) => k.name)).toEqual(['build-server-2']);
    expect((await admin(gateway, 'GET', '/keys?q=_server')).json.data.map((k: { name: string }) => k.name)).toEqual(['Build_Server_3']);
    expect((await admin(gateway, 'GET', '/keys?q=%25')).json.data.map((k: { name: string }) => k.name)).toEqual(['per%cent']);
    // Without paging parameters, every key as before.
    const all = await admin(gateway, 'GET', '/keys');
    expect(all.json.total).toBeUndefined();
    expect(all.json.data.length).toBeGreaterThanOrEqual(7);
  });

  it('leaves revoked keys out when asked, and a key holder searches only their own keys', async () => {
    const staging = (await admin(gateway, 'GET', '/keys?q=staging')).json.data[0];
    expect((await admin(gateway, 'DELETE', `/keys/${staging.id}`)).status).toBe(200);
    expect((await admin(gateway, 'GET', '/keys?q=staging&include_revoked=false')).json.total).toBe(0);
    expect((await admin(gateway, 'GET', '/keys?q=staging')).json.total).toBe(1);

    const own = await consoleCall(gateway, 'GET', '/console/api/keys?q=a&limit=50', undefined, { session: ann.session });
    expect(own.status, own.text).toBe(200);
    expect(own.json.data.map((k: { name: string }) => k.name)).toEqual(['Ann Laptop']);
    expect((await admin(gateway, 'GET', '/keys?limit=0')).status).toBe(400);
    expect((await admin(gateway, 'GET', '/keys?sort=name')).status).toBe(400);
  });

  it('groups usage by user × model from the rollups, and the CSV carries the names the page shows', async () => {
    expect((await chat(gateway, annKey.key, 'delta-4.1')).status).toBe(200);
    expect((await chat(gateway, annKey.key, 'delta-4.1')).status).toBe(200);
    const report = await admin(gateway, 'GET', '/usage?group_by=user_model');
    expect(report.status, report.text).toBe(200);
    const annGroups = report.json.groups.filter((g: { group: string }) => g.group === ann.id);
    expect(annGroups).toEqual([expect.objectContaining({ group: ann.id, model: 'delta-4.1', requests: 2 })]);

    const csv = await admin(gateway, 'GET', '/usage.csv?group_by=user_model');
    const [head, ...lines] = csv.text.trimEnd().split('\r\n');
    expect(head).toBe('group,name,model,requests,prompt_tokens,cached_input_tokens,cache_write_5m_tokens,cache_write_1h_tokens,image_input_tokens,completion_tokens,reasoning_tokens,image_output_tokens,total_tokens,images,video_seconds,cost_usd,cache_hits,saved_cost_usd');
    expect(lines.find((l) => l.startsWith(`${ann.id},`))).toMatch(new RegExp(`^${ann.id},${ann.email},delta-4.1,2,`));

    const byKey = await consoleCall(gateway, 'GET', '/console/api/usage.csv?group_by=key', undefined, { session: ann.session });
    expect(byKey.text.split('\r\n')[1]).toMatch(new RegExp(`^${annKey.id},Ann Laptop,2,`));
    // User groupings are the operator's.
    expect((await consoleCall(gateway, 'GET', '/console/api/usage?group_by=user_model', undefined, { session: ann.session })).status).toBe(400);
    const keyModel = await consoleCall(gateway, 'GET', '/console/api/usage?group_by=key_model', undefined, { session: ann.session });
    expect(keyModel.json.groups).toEqual([expect.objectContaining({ group: annKey.id, model: 'delta-4.1', requests: 2 })]);
  });
});
