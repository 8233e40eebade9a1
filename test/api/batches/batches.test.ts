import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { admin, createKey } from '../../helpers/admin.js';
import { call } from '../../helpers/gateway.js';
import { chatLines, outputLines, startBatchWorld, waitForStatus, type BatchWorld } from './batch-world.js';

const PRICE = { prompt_per_1m: 2, completion_per_1m: 8, batch_discount: 0.5 };

describe('OpenAI Batch API through the gateway (issue 46)', () => {
  let world: BatchWorld;
  beforeAll(async () => {
    world = await startBatchWorld({ prices: { 'delta-4.1': PRICE } });
  });
  afterAll(() => world.gateway.stop());

  it('runs a batch of chat lines to completed: every custom_id once in the output, joined on custom_id', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const file = await world.files.upload(world.keyId, chatLines(ids));
    const created = await world.client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' } });
    expect(created).toMatchObject({ object: 'batch', status: 'validating', input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' }, output_file_id: null, completed_at: null });
    expect(created.id).toMatch(/^batch_/);
    expect(created.expires_at! - created.created_at).toBe(86_400);

    const done = await waitForStatus(world.client, created.id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
    for (const stamp of ['in_progress_at', 'finalizing_at', 'completed_at'] as const) expect(done[stamp]).toBeGreaterThanOrEqual(done.created_at);
    expect(done.failed_at).toBeNull();
    expect(done.error_file_id).toBeNull();
    const output = await outputLines(world, done.output_file_id);
    expect([...output.keys()].sort()).toEqual(ids);
    const first = output.get('a');
    expect(first).toMatchObject({ custom_id: 'a', error: null, response: { status_code: 200 } });
    expect(first.id).toMatch(/^batch_req_/);
    expect(first.response.request_id).toBe(first.id);
    expect(first.response.body.object).toBe('chat.completion');
    const stored = await world.files.get(world.keyId, done.output_file_id!);
    expect(stored?.purpose).toBe('batch_output');

    // Usage adds up across the lines' answers.
    const prompt = [...output.values()].reduce((n, line) => n + line.response.body.usage.prompt_tokens, 0);
    const completion = [...output.values()].reduce((n, line) => n + line.response.body.usage.completion_tokens, 0);
    expect(done.usage).toMatchObject({ input_tokens: prompt, output_tokens: completion, total_tokens: prompt + completion });
    await expect(world.client.batches.cancel(created.id)).rejects.toMatchObject({ status: 409 });
  });

  it('bills each line at the batch price, and the batch, the usage report, the request log and the key spend agree to the nano-dollar', async () => {
    const { id: keyId, key } = await createKey(world.gateway, { name: 'billing' });
    const file = await world.files.upload(keyId, chatLines(['x', 'y', 'z']));
    const client = new OpenAI({ apiKey: key, baseURL: `${world.gateway.url}/v1`, maxRetries: 0 });
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await waitForStatus(client, created.id, ['completed', 'failed']);
    expect(done.status).toBe('completed');

    await world.gateway.deps.usage.flush();
    const events = await world.gateway.deps.db.selectFrom('usage_events').selectAll().where('key_id', '=', keyId).execute();
    expect(events).toHaveLength(3);
    let expected = 0;
    for (const event of events) {
      expect(event.batch_id).toBe(created.id);
      expect(event.request_id).toMatch(/^batch_req_/);
      const half = (event.prompt_tokens * PRICE.prompt_per_1m + event.completion_tokens * PRICE.completion_per_1m) / 1e6 / 2;
      expect(event.cost_usd).toBeCloseTo(half, 12);
      expect(JSON.parse(event.billed_price!)).toMatchObject({ prompt_per_1m: 1, completion_per_1m: 4 });
      expected += event.cost_usd;
    }
    const nano = (usd: number) => Math.round(usd * 1e9);
    const row = await world.gateway.deps.db.selectFrom('batches').select('cost_usd').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(nano(row.cost_usd)).toBe(nano(expected));
    const report = await admin(world.gateway, 'GET', `/usage?key=${keyId}`);
    expect(nano(report.json.totals.cost_usd)).toBe(nano(expected));
    await expect.poll(async () => nano((await admin(world.gateway, 'GET', `/keys/${keyId}`)).json.spent_usd)).toBe(nano(expected));
    const log = await admin(world.gateway, 'GET', `/requests?batch=${created.id}`);
    expect(log.status, log.text).toBe(200);
    expect(log.json.data).toHaveLength(3);
    for (const entry of log.json.data) expect(entry).toMatchObject({ batch_id: created.id, key_id: keyId });
    expect(nano(log.json.data.reduce((n: number, entry: { cost_usd: number }) => n + entry.cost_usd, 0))).toBe(nano(expected));
  });

  it('runs /v1/embeddings and /v1/responses batches through their own endpoints', async () => {
    const embeddings = ['e1', 'e2'].map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: `text ${id}` } })).join('\n');
    const responses = ['p1', 'p2'].map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/responses', body: { model: 'epsilon-4.7', input: `say ${id}` } })).join('\n');
    for (const [endpoint, text, object] of [['/v1/embeddings', embeddings, 'list'], ['/v1/responses', responses, 'response']] as const) {
      const file = await world.files.upload(world.keyId, text);
      const created = await world.client.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' });
      const done = await waitForStatus(world.client, created.id, ['completed', 'failed']);
      expect(done.errors).toBeNull();
      expect(done.request_counts, JSON.stringify([...(await outputLines(world, done.error_file_id)).values()])).toEqual({ total: 2, completed: 2, failed: 0 });
      for (const line of (await outputLines(world, done.output_file_id)).values()) expect(line.response.body.object).toBe(object);
    }
  });

  it('retrieves, lists newest first with an after cursor, and hides another key\'s batches', async () => {
    const file = await world.files.upload(world.keyId, chatLines(['l1']));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await world.client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    const page = await world.client.batches.list({ limit: 2 });
    expect(page.data.map((b) => b.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    const next = await call(world.gateway, 'GET', `/v1/batches?limit=2&after=${ids[1]}`);
    expect(next.json.data[0].id).toBe(ids[0]);
    expect(next.json).toMatchObject({ object: 'list', first_id: ids[0] });

    const other = await createKey(world.gateway, { name: 'other' });
    const stranger = new OpenAI({ apiKey: other.key, baseURL: `${world.gateway.url}/v1`, maxRetries: 0 });
    await expect(stranger.batches.retrieve(ids[0]!)).rejects.toMatchObject({ status: 404 });
    expect((await stranger.batches.list()).data).toEqual([]);
    await expect(stranger.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toMatchObject({ status: 404, param: 'input_file_id' });
    for (const id of ids) await waitForStatus(world.client, id, ['completed']);
  });

  it('refuses bad create requests with 400/404 naming the field', async () => {
    const file = await world.files.upload(world.keyId, chatLines(['r1']));
    const create = (body: Record<string, unknown>) => call(world.gateway, 'POST', '/v1/batches', { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', ...body });
    const window = await create({ completion_window: '48h' });
    expect(window.status).toBe(400);
    expect(window.json.error).toMatchObject({ param: 'completion_window', type: 'invalid_request_error' });
    const endpoint = await create({ endpoint: '/v1/images/generations' });
    expect(endpoint.status).toBe(400);
    expect(endpoint.json.error.param).toBe('endpoint');
    const unknown = await create({ input_file_id: 'file-0000' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain('file-0000');
    const notBatch = await world.files.upload(world.keyId, chatLines(['r2']), 'user_data');
    const purpose = await create({ input_file_id: notBatch.id });
    expect(purpose.status).toBe(400);
    expect(purpose.json.error.param).toBe('input_file_id');
    const metadata = await create({ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) });
    expect(metadata.status).toBe(400);
    expect(metadata.json.error.param).toBe('metadata');
    expect((await call(world.gateway, 'GET', '/v1/batches/batch_nope')).status).toBe(404);
    expect((await call(world.gateway, 'GET', '/v1/batches?limit=101')).status).toBe(400);
  });

  it('fails a malformed file in validating with 1-based line numbers, and bills nothing', async () => {
    const good = (id: string, extra: Record<string, unknown> = {}) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, ...extra });
    const text = [
      good('ok1'),
      '{not json',
      good('ok1'),
      good('u1', { url: '/v1/embeddings' }),
      JSON.stringify({ custom_id: 'm1', method: 'POST', url: '/v1/chat/completions', body: { model: 'no-such-model', messages: [] } }),
      good('g1', { method: 'GET' }),
      JSON.stringify({ method: 'POST', url: '/v1/chat/completions', body: { model: 'delta-4.1' } }),
    ].join('\n');
    const file = await world.files.upload(world.keyId, text);
    const created = await world.client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const failed = await waitForStatus(world.client, created.id, ['failed', 'completed', 'in_progress']);
    expect(failed.status).toBe('failed');
    expect(failed.failed_at).not.toBeNull();
    expect(failed.errors?.data?.map((e) => [e.code, e.line])).toEqual([
      ['invalid_json_line', 2],
      ['duplicate_custom_id', 3],
      ['mismatched_url', 4],
      ['model_not_found', 5],
      ['invalid_method', 6],
      ['missing_custom_id', 7],
    ]);
    expect(failed.output_file_id).toBeNull();
    expect(failed.request_counts?.total).toBe(0);
    await world.gateway.deps.usage.flush();
    const billed = await world.gateway.deps.db.selectFrom('usage_events').select('id').where('batch_id', '=', created.id).execute();
    expect(billed).toEqual([]);
  });

  it('fails an empty file, and sends a line its endpoint refuses to the error file with its status and body', async () => {
    const empty = await world.files.upload(world.keyId, '\n');
    const emptyBatch = await world.client.batches.create({ input_file_id: empty.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const failed = await waitForStatus(world.client, emptyBatch.id, ['failed', 'completed']);
    expect(failed.errors?.data?.[0]?.code).toBe('empty_file');

    const text = chatLines(['fine']) + JSON.stringify({ custom_id: 'bad', method: 'POST', url: '/v1/chat/completions', body: { model: 'delta-4.1', messages: [] } }) + '\n';
    const file = await world.files.upload(world.keyId, text);
    const created = await world.client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await waitForStatus(world.client, created.id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });
    const errors = await outputLines(world, done.error_file_id);
    expect(errors.get('bad')).toMatchObject({ response: { status_code: 400, body: { error: { code: 'invalid_parameter' } } }, error: null });
    expect((await outputLines(world, done.output_file_id)).has('fine')).toBe(true);
  });

  it("holds lines sent in a vendor's batch to the key's model list and the endpoint's rules, as the sync endpoint does: refused lines never go upstream", async () => {
    // The simulator's OpenAI channel takes batches natively: these lines do not pass through the endpoint.
    const { id: keyId, key } = await createKey(world.gateway, { name: 'narrow', models: ['gamma-2.5-flash-lite'] });
    const client = new OpenAI({ apiKey: key, baseURL: `${world.gateway.url}/v1`, maxRetries: 0 });
    const file = await world.files.upload(keyId, chatLines(['n1', 'n2']));
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await waitForStatus(client, created.id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 2, completed: 0, failed: 2 });
    const errors = await outputLines({ ...world, keyId }, done.error_file_id);
    expect(errors.get('n1')).toMatchObject({ response: { status_code: 403, body: { error: { code: 'permission_denied' } } }, error: null });
    expect(done.output_file_id ?? null).toBeNull();
  });

  it('refuses at create a batch whose worst case is over the key\'s budget, as the sync endpoint refuses', async () => {
    const { id: keyId, key } = await createKey(world.gateway, { name: 'tight', budget_usd: 0.000001 });
    const file = await world.files.upload(keyId, chatLines(['b1', 'b2'], 'delta-4.1', { max_tokens: 1000 }));
    const answer = await call(world.gateway, 'POST', '/v1/batches', { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, { authorization: `Bearer ${key}` });
    expect(answer.status).toBe(429);
    expect(answer.json.error.code).toBe('insufficient_quota');
  });
});
