import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, type ConsoleSession } from '../../helpers/console.js';

const PRICES = { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 }, 'alpha-sonnet-4-5-20250929': { prompt_per_1m: 3, completion_per_1m: 15 } };

/** Parses the simple CSV the usage export writes (no quoted cells in these tests). */
const parseCsv = (text: string) => {
  const [header, ...rows] = text.trim().split('\r\n').map((line) => line.split(','));
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])));
};

describe('usage reports by hour, channel and user; CSV; the console\'s scoped view (issue 12)', () => {
  let gateway: TestGateway;
  let ann: { session: ConsoleSession; id: string };
  let bob: { session: ConsoleSession; id: string };
  let annKey: { id: string; key: string };
  let bobKey: { id: string; key: string };
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: PRICES } });
    ann = await inviteUser(gateway);
    bob = await inviteUser(gateway);
    annKey = (await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'ann' }, { session: ann.session })).json;
    bobKey = (await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'bob' }, { session: bob.session })).json;
    const send = (secret: string, model: string) =>
      call(gateway, 'POST', model.startsWith('alpha') ? '/v1/messages' : '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'count my usage' }], max_tokens: 20 }, bearer(secret));
    for (const [secret, model] of [[annKey.key, 'delta-4.1'], [annKey.key, 'delta-4.1'], [annKey.key, 'alpha-sonnet-4-5-20250929'], [bobKey.key, 'delta-4.1']] as const) {
      expect((await send(secret, model)).status).toBe(200);
    }
  });
  afterAll(() => gateway.stop());

  it('group_by user sums each owner\'s keys; the user filter equals that group and the user\'s own console report', async () => {
    const byUser = await admin(gateway, 'GET', '/usage?group_by=user');
    expect(byUser.status).toBe(200);
    expect(byUser.json.group_by).toBe('user');
    const annGroup = byUser.json.groups.find((g: { group: string }) => g.group === ann.id);
    const bobGroup = byUser.json.groups.find((g: { group: string }) => g.group === bob.id);
    expect(annGroup.requests).toBe(3);
    expect(bobGroup.requests).toBe(1);
    expect(annGroup.cost_usd).toBeGreaterThan(0);

    const filtered = await admin(gateway, 'GET', `/usage?user=${ann.id}`);
    const { group: _g, ...annTotals } = annGroup;
    expect(filtered.json.totals).toEqual(annTotals);
    const own = await consoleCall(gateway, 'GET', '/console/api/usage', undefined, { session: ann.session });
    expect(own.status).toBe(200);
    expect(own.json.totals).toEqual(filtered.json.totals);
  });

  it('group_by hour names UTC hours; group_by channel names channels; the channel filter narrows to one', async () => {
    const byHour = await admin(gateway, 'GET', '/usage?group_by=hour');
    expect(byHour.json.groups.length).toBeGreaterThan(0);
    for (const group of byHour.json.groups) expect(group.group).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00Z$/);
    expect(byHour.json.groups.map((g: { group: string }) => g.group)).toContain(new Date().toISOString().slice(0, 13) + ':00Z');
    expect(byHour.json.groups.reduce((n: number, g: { requests: number }) => n + g.requests, 0)).toBe(byHour.json.totals.requests);

    const byChannel = await admin(gateway, 'GET', '/usage?group_by=channel');
    const channels = byChannel.json.groups.map((g: { group: string }) => g.group);
    expect(channels).toEqual(expect.arrayContaining(['simulator-openai', 'simulator-anthropic']));
    const anthropic = await admin(gateway, 'GET', '/usage?channel=simulator-anthropic');
    expect(anthropic.json.totals.requests).toBe(byChannel.json.groups.find((g: { group: string }) => g.group === 'simulator-anthropic').requests);
    expect(anthropic.json.totals.requests).toBe(1);
  });

  it('the console report is scoped: another user\'s key id gives nothing, and user grouping or filtering is refused', async () => {
    const other = await consoleCall(gateway, 'GET', `/console/api/usage?key=${bobKey.id}`, undefined, { session: ann.session });
    expect(other.status).toBe(200);
    expect(other.json.totals.requests).toBe(0);
    const byModel = await consoleCall(gateway, 'GET', '/console/api/usage?group_by=model', undefined, { session: ann.session });
    expect(byModel.json.groups.map((g: { group: string }) => g.group).sort()).toEqual(['alpha-sonnet-4-5-20250929', 'delta-4.1']);
    for (const query of ['group_by=user', `user=${bob.id}`, 'group_by=week']) {
      const refused = await consoleCall(gateway, 'GET', `/console/api/usage?${query}`, undefined, { session: ann.session });
      expect(refused.status, query).toBe(400);
      assertEnvelope('general', refused.json);
    }
  });

  it('CSV exports carry the same figures as the JSON reports (admin and console)', async () => {
    const json = await admin(gateway, 'GET', '/usage?group_by=model');
    const csv = await admin(gateway, 'GET', '/usage.csv?group_by=model');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toContain('attachment');
    expect(csv.text.split('\r\n')[0]).toBe('group,requests,prompt_tokens,cached_input_tokens,cache_write_5m_tokens,cache_write_1h_tokens,image_input_tokens,completion_tokens,reasoning_tokens,image_output_tokens,total_tokens,images,video_seconds,cost_usd,cache_hits,saved_cost_usd');
    const rows = parseCsv(csv.text);
    expect(rows.map((r) => r.group)).toEqual(json.json.groups.map((g: { group: string }) => g.group));
    for (const [i, row] of rows.entries()) {
      expect(Number(row.requests)).toBe(json.json.groups[i].requests);
      expect(Number(row.total_tokens)).toBe(json.json.groups[i].total_tokens);
      expect(Number(row.cost_usd)).toBe(json.json.groups[i].cost_usd);
    }
    const ungrouped = parseCsv((await admin(gateway, 'GET', '/usage.csv')).text);
    expect(ungrouped).toHaveLength(1);
    expect(ungrouped[0]!.group).toBe('all');
    expect(Number(ungrouped[0]!.requests)).toBe((await admin(gateway, 'GET', '/usage')).json.totals.requests);

    const consoleCsv = await consoleCall(gateway, 'GET', '/console/api/usage.csv', undefined, { session: bob.session });
    expect(consoleCsv.status).toBe(200);
    expect(Number(parseCsv(consoleCsv.text)[0]!.requests)).toBe(1);
    const bad = await admin(gateway, 'GET', '/usage.csv?group_by=fortnight');
    expect(bad.status).toBe(400);
    assertEnvelope('general', bad.json);
  });
});
