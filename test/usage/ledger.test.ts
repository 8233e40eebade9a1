import { countPromptText as countPromptTokens } from '../../src/api/body-facts/prompt-facts.js';
import { countTokens } from '../../src/tokens/tokenizer.js';
import { parseSseText } from '../../src/sse/parse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin, bearer, createKey } from '../helpers/admin.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { parseSse } from '../../src/sse/parse.js';

const PRICES = { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 }, 'zeta-1.0-r2v': { per_video_second: 0.25 } };
const USER = [{ role: 'user', content: 'Tell me about ledgers' }];
const VIDEO = { model: 'zeta-1.0-r2v', images: ['https://example.com/ref.png'] };
const tokenCost = (prompt: number, completion: number) => (prompt * 2 + completion * 8) / 1_000_000;

describe('usage ledger and billing (issue 4)', () => {
  let gateway: TestGateway;
  const openai = () => gateway.deps.simulators.get('simulator-openai')!;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: PRICES, simulator: { video_task_ms: 200 } } });
  });
  afterAll(() => gateway.stop());

  const eventsOf = async (keyId: string) => {
    await gateway.deps.usage.flush();
    return gateway.deps.db.selectFrom('usage_events').selectAll().where('key_id', '=', keyId).orderBy('id').execute();
  };
  const chatStream = (secret: string, signal?: AbortSignal) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      signal,
      headers: { ...bearer(secret), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'delta-4.1', messages: USER, stream: true, stream_options: { include_usage: true }, max_tokens: 30 }),
    });

  it('after a mix of ends, the ledger matches what happened, token for token', async () => {
    const { id, key } = await createKey(gateway, {});
    const seen: Array<{ outcome: string; status: number; prompt: number; completion: number }> = [];

    // 1. A success.
    const ok = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: USER, max_tokens: 30 }, bearer(key));
    expect(ok.status).toBe(200);
    seen.push({ outcome: 'success', status: 200, prompt: ok.json.usage.prompt_tokens, completion: ok.json.usage.completion_tokens });

    // 2. A streamed success: the usage chunk's numbers.
    let streamed: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const event of parseSse((await chatStream(key)).body!)) {
      if (event.data !== '[DONE]' && JSON.parse(event.data).usage) streamed = JSON.parse(event.data).usage;
    }
    seen.push({ outcome: 'success', status: 200, prompt: streamed!.prompt_tokens, completion: streamed!.completion_tokens });

    // 3. An upstream error (final 400): no tokens.
    openai().setOptions({ fault_status: 400, fault_times: 1 });
    const failed = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: USER }, bearer(key));
    expect(failed.status).toBe(400);
    seen.push({ outcome: 'error', status: 400, prompt: 0, completion: 0 });

    // 4. The client leaves mid-stream, before the upstream's usage arrived: recorded with the prompt
    //    and the text delivered so far (counted by the gateway; how much was sent depends on timing).
    openai().setOptions({ tokens_per_second: 30 });
    const controller = new AbortController();
    const leaving = await chatStream(key, controller.signal);
    const reader = leaving.body!.getReader();
    await reader.read();
    controller.abort();
    const promptTokens = countPromptTokens({ messages: USER }, countTokens);
    seen.push({ outcome: 'client_disconnect', status: 200, prompt: promptTokens, completion: -1 });

    // 5. The upstream cuts the stream: an error event ends it; recorded as a stream error with the
    //    prompt and exactly the text the client received.
    openai().setOptions({ cut_stream_after: 2 });
    const cut = await (await chatStream(key)).text();
    expect(cut).toContain('error');
    const received = (await parseSseText(cut)).map((e) => JSON.parse(e.data) as { choices?: Array<{ delta: { content?: string } }> });
    const receivedText = received.map((c) => c.choices?.[0]?.delta.content ?? '').join('');
    seen.push({ outcome: 'stream_error', status: 200, prompt: promptTokens, completion: countTokens(receivedText) });
    openai().setOptions({});

    await expect.poll(async () => (await eventsOf(id)).length).toBe(seen.length);
    // Events are written as requests end; an abandoned stream's may come after a later request's.
    const byOutcome = (a: { outcome: string; prompt: number }, b: { outcome: string; prompt: number }) => a.outcome.localeCompare(b.outcome) || a.prompt - b.prompt;
    const events = (await eventsOf(id)).map((e) => ({ ...e, prompt: e.prompt_tokens })).sort(byOutcome);
    const expected = [...seen].sort(byOutcome);
    // The disconnect's completion count depends on how far the stream got: take it as recorded.
    for (const [i, e] of expected.entries()) if (e.completion === -1) e.completion = events[i]!.completion_tokens;
    expect(events.map((e) => ({ outcome: e.outcome, status: e.status, prompt: e.prompt_tokens, completion: e.completion_tokens }))).toEqual(expected);
    for (const [i, event] of events.entries()) {
      expect(event).toMatchObject({ key_id: id, model: 'delta-4.1', family: 'chat-completions', channel: 'simulator-openai' });
      expect(event.cost_usd).toBeCloseTo(tokenCost(expected[i]!.prompt, expected[i]!.completion), 12);
    }
    // The three streams sent output, so they have a time to first token; the JSON answers have none.
    expect(events.filter((e) => e.ttft_ms !== null).map((e) => e.outcome).sort()).toEqual(['client_disconnect', 'stream_error', 'success']);
    expect(events.filter((e) => e.outcome === 'success').every((e) => e.cost_usd > 0)).toBe(true);

    // The admin report agrees with the ledger.
    const report = await admin(gateway, 'GET', `/usage?key=${id}`);
    const prompt = seen.reduce((s, e) => s + e.prompt, 0);
    const completion = seen.reduce((s, e) => s + e.completion, 0);
    expect(report.json.totals).toMatchObject({
      requests: 5, prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, images: 0, video_seconds: 0,
      by_outcome: { success: 2, error: 1, client_disconnect: 1, stream_error: 1 },
    });
    expect(report.json.totals.cost_usd).toBeCloseTo(tokenCost(prompt, completion), 9);
  });

  it('video: a failed task is not charged; a completed one is charged once, however many poll it at once', async () => {
    const { id, key } = await createKey(gateway, {});
    const failing = await call(gateway, 'POST', '/v1/video/generations', { ...VIDEO, prompt: 'break [[sim:fail]]' }, bearer(key));
    const working = await call(gateway, 'POST', '/v1/video/generations', { ...VIDEO, prompt: 'A cat opens a fan' }, bearer(key));
    expect([failing.status, working.status]).toEqual([200, 200]);

    const pollAll = async (taskId: string, done: string) => {
      for (let round = 0; round < 100; round++) {
        const answers = await Promise.all(Array.from({ length: 6 }, () => call(gateway, 'GET', `/v1/video/generations/${taskId}`, undefined, bearer(key))));
        if (answers.some((a) => a.json.status === done)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`task ${taskId} never became ${done}`);
    };
    await pollAll(failing.json.id, 'failed');
    await pollAll(working.json.id, 'completed');
    // More concurrent reads of the finished task change nothing.
    await Promise.all(Array.from({ length: 6 }, () => call(gateway, 'GET', `/v1/video/generations/${working.json.id}`, undefined, bearer(key))));

    const tasks = await gateway.deps.db.selectFrom('video_tasks').select(['id', 'status', 'charged']).where('key_id', '=', id).orderBy('created_at').execute();
    expect(tasks.map((t) => [t.status, t.charged])).toEqual(expect.arrayContaining([['failed', 0], ['completed', 1]]));

    const events = await eventsOf(id);
    const charges = events.filter((e) => e.outcome === 'video_completed');
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ request_id: working.json.id, model: 'zeta-1.0-r2v', family: 'video-generations', video_seconds: 2 });
    expect(charges[0]!.cost_usd).toBeCloseTo(2 * 0.25, 12);
    // Creating and reading tasks cost nothing themselves.
    expect(events.filter((e) => e.outcome !== 'video_completed').every((e) => e.cost_usd === 0)).toBe(true);

    const report = await admin(gateway, 'GET', `/usage?key=${id}&group_by=model`);
    expect(report.json.totals).toMatchObject({ video_seconds: 2, by_outcome: expect.objectContaining({ video_completed: 1 }) });
    expect(report.json.totals.requests).toBe(events.length - 1);
    expect(report.json.totals.cost_usd).toBeCloseTo(0.5, 9);
  });

  it('a key over its budget gets 429 insufficient_quota in its family envelope', async () => {
    // Room for the first request's worst case (30 output tokens); then the operator lowers the budget below what it spent.
    const { id, key } = await createKey(gateway, { budget_usd: 0.0003 });
    const first = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: USER, max_tokens: 30 }, bearer(key));
    expect(first.status).toBe(200);
    await expect.poll(async () => (await eventsOf(id)).length).toBe(1);
    await admin(gateway, 'PATCH', `/keys/${id}`, { budget_usd: 0.00001 });
    const refused = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: USER }, bearer(key));
    expect(refused.status).toBe(429);
    assertEnvelope('chat', refused.json);
    expect(refused.json.error.code).toBe('insufficient_quota');
    const general = await call(gateway, 'POST', '/v1/responses', { model: 'epsilon-4.7', input: 'hi' }, bearer(key));
    expect(general.status).toBe(429);
    expect(general.json.error).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' });
    // Raising the budget lets it through again at once.
    await admin(gateway, 'PATCH', `/keys/${id}`, { budget_usd: 1 });
    expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: USER }, bearer(key))).status).toBe(200);
  });

  it('the usage report filters by model and time and groups by day, model and key', async () => {
    const a = await createKey(gateway, {});
    const b = await createKey(gateway, {});
    const since = new Date().toISOString();
    for (const [key, model] of [[a.key, 'delta-4.1'], [a.key, 'epsilon-4.7'], [b.key, 'delta-4.1']] as const) {
      expect((await call(gateway, 'POST', '/v1/chat/completions', { model, messages: USER, max_tokens: 10 }, bearer(key))).status).toBe(200);
    }
    await expect.poll(async () => (await eventsOf(a.id)).length + (await eventsOf(b.id)).length).toBe(3);

    const byKey = await admin(gateway, 'GET', `/usage?from=${encodeURIComponent(since)}&model=delta-4.1&group_by=key`);
    expect(byKey.status).toBe(200);
    expect(byKey.json.group_by).toBe('key');
    expect(byKey.json.groups.map((g: { group: string }) => g.group).sort()).toEqual([a.id, b.id].sort());
    expect(byKey.json.totals.requests).toBe(2);

    const byModel = await admin(gateway, 'GET', `/usage?key=${a.id}&group_by=model`);
    expect(byModel.json.groups.map((g: { group: string; requests: number }) => [g.group, g.requests])).toEqual([['delta-4.1', 1], ['epsilon-4.7', 1]]);

    const byDay = await admin(gateway, 'GET', `/usage?key=${a.id}&group_by=day&from=${Math.floor(Date.now() / 1000) - 60}`);
    expect(byDay.json.groups).toEqual([expect.objectContaining({ group: new Date().toISOString().slice(0, 10), requests: 2 })]);

    const future = await admin(gateway, 'GET', `/usage?key=${a.id}&from=2099-01-01T00:00:00Z`);
    expect(future.json.totals).toMatchObject({ requests: 0, cost_usd: 0, by_outcome: {} });

    const bad = await admin(gateway, 'GET', '/usage?group_by=week');
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('group_by');
    const badTime = await admin(gateway, 'GET', '/usage?from=yesterday');
    expect(badTime.status).toBe(400);
    expect(badTime.json.error.message).toContain("'from'");
  });
});
