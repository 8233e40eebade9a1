import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { chat, startRequestLogWorld, type RequestLogWorld } from '../../helpers/request-log-world.js';
import { consoleCall, signInWithAdminToken } from '../../helpers/console.js';

const DAY_MS = 86_400_000;

describe('request log API (issue 12)', () => {
  let gateway: TestGateway;
  let ann: RequestLogWorld['ann'];
  let annKey: RequestLogWorld['annKey'];
  beforeAll(async () => {
    ({ gateway, ann, annKey } = await startRequestLogWorld({ prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } }));
  });
  afterAll(() => gateway.stop());

  it('lists each request on a model endpoint, newest first, with its key, channel, tokens, cost, retries and timings', async () => {
    const first = await chat(gateway, TEST_KEY, {}, { 'x-request-id': 'trace-first' });
    expect(first.status, first.text).toBe(200);
    const streamed = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'stream it' }], stream: true }, bearer(TEST_KEY));
    expect(streamed.text).toContain('[DONE]');

    const page = await admin(gateway, 'GET', '/requests?limit=2');
    expect(page.status, page.text).toBe(200);
    const [newest, older] = page.json.data;
    expect(older).toMatchObject({
      request_id: 'trace-first',
      family: 'chat-completions',
      model: 'delta-4.1',
      channel: 'flaky-openai',
      status: 200,
      outcome: 'success',
      key_name: expect.any(String),
      user_id: 'operator',
      retries: 1,
      fallbacks: 0,
      error_code: null,
      prompt_tokens: first.json.usage.prompt_tokens,
      completion_tokens: first.json.usage.completion_tokens,
      total_tokens: first.json.usage.total_tokens,
    });
    expect(older.cost_usd).toBeCloseTo((first.json.usage.prompt_tokens * 2 + first.json.usage.completion_tokens * 8) / 1e6, 12);
    expect(older.latency_ms).toBeGreaterThanOrEqual(0);
    expect(newest).toMatchObject({ family: 'chat-completions', retries: 0, status: 200, ttfb_ms: expect.any(Number) });
    // Entry ids are the gateway's own, random (issue 23): distinct, and not the x-request-id.
    expect(newest.id).not.toBe(older.id);
    expect(older.id).not.toBe('trace-first');
    expect(Date.parse(newest.created_at)).toBeGreaterThanOrEqual(Date.parse(older.created_at));
  });

  it('shows what a refused request got (status, the error code and message the client read), but never a request without a valid key', async () => {
    const invalid = await chat(gateway, TEST_KEY, { temperature: 9 });
    expect(invalid.status).toBe(400);
    // Unauthenticated traffic is not written: without a key, nobody can grow the database.
    const unauthorized = await chat(gateway, 'sk-gw-not-a-key-000000000000');
    expect(unauthorized.status).toBe(401);

    const errors = await admin(gateway, 'GET', '/requests?status=4xx');
    expect(errors.json.data).toHaveLength(1);
    expect(errors.json.data[0]).toMatchObject({
      status: 400,
      outcome: 'error',
      error_code: invalid.json.error.code,
      error_message: invalid.json.error.message,
      key_name: 'bootstrap',
      // The model the client asked for, though validation refused the body (issue 22).
      model: 'delta-4.1',
    });
  });

  it('filters by key, model, status, request id and time, and pages with a cursor until next_before is null', async () => {
    for (let i = 0; i < 3; i++) expect((await chat(gateway, annKey.key)).status).toBe(200);
    const byKey = await admin(gateway, 'GET', `/requests?key=${annKey.id}`);
    expect(byKey.json.data).toHaveLength(3);
    expect(byKey.json.data.every((entry: { key_id: string; user_id: string; key_name: string }) => entry.key_id === annKey.id && entry.user_id === ann.id && entry.key_name === 'ann-key')).toBe(true);

    const seen: string[] = [];
    let before: string | null = null;
    do {
      const page = await admin(gateway, 'GET', `/requests?key=${annKey.id}&limit=2${before ? `&before=${before}` : ''}`);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.json.data.map((entry: { id: string }) => entry.id));
      before = page.json.next_before;
    } while (before);
    expect(seen).toEqual(byKey.json.data.map((entry: { id: string }) => entry.id));

    expect((await admin(gateway, 'GET', '/requests?request_id=trace-first')).json.data).toHaveLength(1);
    expect((await admin(gateway, 'GET', '/requests?model=epsilon-4.7')).json.data).toHaveLength(0);
    expect((await admin(gateway, 'GET', '/requests?status=401')).json.data.every((e: { status: number }) => e.status === 401)).toBe(true);
    expect((await admin(gateway, 'GET', '/requests?status=error')).json.data.every((e: { status: number }) => e.status >= 400)).toBe(true);
    expect((await admin(gateway, 'GET', '/requests?status=success')).json.data.every((e: { status: number }) => e.status === 200)).toBe(true);
    const future = Math.floor(Date.now() / 1000) + 3600;
    expect((await admin(gateway, 'GET', `/requests?from=${future}`)).json.data).toHaveLength(0);
    expect((await admin(gateway, 'GET', `/requests?to=${future}&key=${annKey.id}`)).json.data).toHaveLength(3);
  });

  it('opens one request with its headers, secrets masked, and no bodies while body logging is off', async () => {
    const page = await admin(gateway, 'GET', '/requests?request_id=trace-first');
    const detail = await admin(gateway, 'GET', `/requests/${page.json.data[0].id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.json).toMatchObject({ request_id: 'trace-first', request_body: null, response_body: null });
    expect(detail.json.request_headers['x-request-id']).toBe('trace-first');
    expect(detail.json.request_headers.authorization).toBe('Bearer [masked]');
    expect(detail.text).not.toContain(TEST_KEY);
    expect((await admin(gateway, 'GET', '/requests/99999999')).status).toBe(404);
    expect((await admin(gateway, 'GET', '/requests/not-a-number')).status).toBe(404);
  });

  it('refuses bad queries with a 400 naming the field', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=ten', 'status=abc', 'before=-1', 'from=yesterday', 'colour=blue']) {
      const refused = await admin(gateway, 'GET', `/requests?${query}`);
      expect(refused.status, query).toBe(400);
      assertEnvelope('general', refused.json);
    }
  });

  it('a key holder sees only the requests of their own keys, without channel names', async () => {
    const mine = await consoleCall(gateway, 'GET', '/console/api/requests', undefined, { session: ann.session });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.json.data).toHaveLength(3);
    expect(mine.json.data.every((entry: { key_id: string; channel: unknown }) => entry.key_id === annKey.id && entry.channel === null)).toBe(true);
    // Asking for another key's requests by filter finds nothing; by id, a 404.
    const operatorKeyId = (await admin(gateway, 'GET', '/requests?request_id=trace-first')).json.data[0];
    expect((await consoleCall(gateway, 'GET', `/console/api/requests?key=${operatorKeyId.key_id}`, undefined, { session: ann.session })).json.data).toHaveLength(0);
    expect((await consoleCall(gateway, 'GET', `/console/api/requests/${operatorKeyId.id}`, undefined, { session: ann.session })).status).toBe(404);
    const own = await consoleCall(gateway, 'GET', `/console/api/requests/${mine.json.data[0].id}`, undefined, { session: ann.session });
    expect(own.status).toBe(200);
    expect(own.json.request_headers.authorization).toBe('Bearer [masked]');
    // The admin query's `user` filter is not the console's: unknown there.
    expect((await consoleCall(gateway, 'GET', '/console/api/requests?user=operator', undefined, { session: ann.session })).status).toBe(400);
  });

  it('answers 401 without credentials and 403 to a key holder on the operator log', async () => {
    for (const path of ['/admin/api/requests', '/admin/api/requests/1', '/console/api/requests', '/console/api/requests/1']) {
      const refused = await call(gateway, 'GET', path, undefined, {});
      expect(refused.status, path).toBe(401);
      assertEnvelope('general', refused.json);
      // An API key is neither the admin token nor a session.
      expect((await call(gateway, 'GET', path, undefined, bearer(TEST_KEY))).status, path).toBe(401);
    }
    for (const path of ['/admin/api/requests', '/admin/api/requests/1']) {
      expect((await consoleCall(gateway, 'GET', path, undefined, { session: ann.session })).status, path).toBe(403);
    }
    const operator = await signInWithAdminToken(gateway);
    expect((await consoleCall(gateway, 'GET', '/admin/api/requests?limit=1', undefined, { session: operator })).status).toBe(200);
  });

  it('keeps requests for the retention period only: older events and details are deleted, their usage figures stay (issue 22)', async () => {
    const { db, usage } = gateway.deps;
    const old = Date.now() - 8 * DAY_MS;
    const day = new Date(old).toISOString().slice(0, 10);
    await usage.write([
      { request_id: 'ancient', key_id: null, model: 'old-model', channel: null, family: 'chat-completions', status: 200, outcome: 'success', prompt_tokens: 7, completion_tokens: 3, reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: 0.25, latency_ms: 1, ttft_ms: null, created_at: old },
    ]);
    await db.insertInto('request_details').values({ request_id: 'ancient', created_at: old, retries: 0, fallbacks: 0, error_code: null, error_message: null, request_headers: '{}', request_body: null, response_body: null }).execute();
    expect((await admin(gateway, 'GET', '/requests?request_id=ancient')).json.data).toHaveLength(0);
    const before = (await admin(gateway, 'GET', `/usage?model=old-model&group_by=day&from=${day}`)).json;

    const run = await gateway.retention.run();
    expect(run.events).toBeGreaterThanOrEqual(1);
    expect(run.details).toBeGreaterThanOrEqual(1);
    expect(await db.selectFrom('request_details').select('request_id').where('request_id', '=', 'ancient').execute()).toHaveLength(0);
    expect(await db.selectFrom('usage_events').select('request_id').where('request_id', '=', 'ancient').execute()).toHaveLength(0);
    // The rollups keep the figures: the report of that day is what it was.
    const after = (await admin(gateway, 'GET', `/usage?model=old-model&group_by=day&from=${day}`)).json;
    expect(after).toEqual(before);
    expect(after.groups).toEqual([expect.objectContaining({ group: day, requests: 1, total_tokens: 10, cost_usd: 0.25 })]);
  });
});

describe('request log with body logging turned on (issue 12)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { request_log: { bodies: true, max_body_chars: 20000 } } });
  });
  afterAll(() => gateway.stop());

  it('keeps the request body as sent and the response as the client got it, streams as their SSE text, cut at max_body_chars', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'remember this sentence' }] });
    const stream = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'and stream this one' }], stream: true });
    for await (const _ of stream) void _;
    const long = 'x'.repeat(30000);
    expect((await chat(gateway, TEST_KEY, { messages: [{ role: 'user', content: long }] })).status).toBe(200);

    const page = await admin(gateway, 'GET', '/requests?limit=3');
    const [longOne, streamed, plain] = await Promise.all(page.json.data.map(async (entry: { id: string }) => (await admin(gateway, 'GET', `/requests/${entry.id}`)).json));
    expect(JSON.parse(plain.request_body).messages[0].content).toBe('remember this sentence');
    expect(JSON.parse(plain.response_body).id).toBe(completion.id);
    expect(streamed.request_body).toContain('and stream this one');
    expect(streamed.response_body).toMatch(/^data: \{/);
    expect(streamed.response_body).toContain('data: [DONE]');
    expect(longOne.request_body.length).toBeLessThan(20100);
    expect(longOne.request_body).toMatch(/more characters not kept\]$/);
  });
});
