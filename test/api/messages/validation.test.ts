import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/server.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const base = { model: 'alpha-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }] };

/** [field, value at the bound (accepted), value just past it (rejected), rule named in the message] */
const BOUNDS: Array<[field: string, accepted: unknown, rejected: unknown, rule: RegExp]> = [
  ['max_tokens', 1, 0, /greater than or equal to 1/],
  ['max_tokens', 8192, 8193, /less than or equal to 8192/],
  ['max_tokens', 8192, 100.5, /type integer/],
  ['temperature', 0, -0.01, /greater than or equal to 0/],
  ['temperature', 1, 2.01, /less than or equal to 2/],
  ['top_p', 0, -0.01, /greater than or equal to 0/],
  ['top_p', 1, 1.01, /less than or equal to 1/],
  ['frequency_penalty', -2, -2.01, /greater than or equal to -2/],
  ['frequency_penalty', 2, 2.01, /less than or equal to 2/],
  ['presence_penalty', -2, -2.01, /greater than or equal to -2/],
  ['presence_penalty', 2, 2.01, /less than or equal to 2/],
  ['stream', false, 'yes', /type boolean/],
  ['stop', 'END', 5, /stop/],
  ['stop', ['END', 'STOP'], ['END', 1], /stop/],
];

describe('POST /v1/messages validation (spec §2 ranges, chat envelope)', () => {
  let gateway: TestGateway;
  let upstream: RunningSimulator;
  beforeAll(async () => {
    gateway = await startTestGateway();
    upstream = gateway.deps.simulators.get('simulator-anthropic')!;
  });
  afterAll(() => gateway.stop());

  const expectInvalid = (res: Awaited<ReturnType<typeof call>>, field: string, rule: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: { code: 'invalid_parameter', message: expect.stringContaining(`'${field}`) } });
    expect(res.json.error.message).toMatch(rule);
  };

  it.each(BOUNDS)('%s: %j is accepted, %j is a 400 naming the field', async (field, accepted, rejected, rule) => {
    const ok = await call(gateway, 'POST', '/v1/messages', { ...base, [field]: accepted });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    const before = upstream.requests.length;
    expectInvalid(await call(gateway, 'POST', '/v1/messages', { ...base, [field]: rejected }), field, rule);
    expect(upstream.requests.length).toBe(before);
  });

  it.each([
    ['model', { messages: base.messages }, /is required/],
    ['model', { ...base, model: 'delta-4.1' }, /must be one of: alpha-sonnet-4-5-20250929, alpha-opus-4-20250514/],
    ['messages', { model: base.model }, /is required/],
    ['messages', { ...base, messages: [] }, /at least 1 item/],
    ['messages[0].role', { ...base, messages: [{ role: 'tool', content: 'x' }] }, /must be one of: system, user, assistant/],
    ['messages[0].content', { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }, /type string/],
    ['messages[0].content', { ...base, messages: [{ role: 'user' }] }, /is required/],
  ])('%s: rejects %j', async (field, body, rule) => {
    expectInvalid(await call(gateway, 'POST', '/v1/messages', body), field, rule);
  });

  it('accepts fields the spec does not list (they are not forwarded unless Anthropic knows them)', async () => {
    const res = await call(gateway, 'POST', '/v1/messages', { ...base, top_k: 5, seed: 7 });
    expect(res.status).toBe(200);
    const sent = upstream.requests[upstream.requests.length - 1]!.body as Record<string, unknown>;
    expect(sent.top_k).toBe(5);
    expect(sent).not.toHaveProperty('seed');
  });

  it('rejects a conversation of system messages only with a 400 naming messages', async () => {
    expectInvalid(await call(gateway, 'POST', '/v1/messages', { ...base, messages: [{ role: 'system', content: 'Be brief.' }] }), 'messages', /user or assistant/);
  });

  it('rejects a body that is not JSON or not an object in the chat envelope', async () => {
    const notJson = await call(gateway, 'POST', '/v1/messages', '{"model":');
    expect(notJson.status).toBe(400);
    expect(notJson.json).toEqual({ error: { code: 'invalid_json', message: expect.any(String) } });
    expectInvalid(await call(gateway, 'POST', '/v1/messages', [1, 2]), 'body', /type object/);
  });

  // Anthropic's own temperature range is 0..1 (anthropic.md); the spec allows 0..2, so values
  // above 1 are sent as Anthropic's maximum and the request is served.
  it('serves a temperature above 1 by sending Anthropic its maximum of 1', async () => {
    const res = await call(gateway, 'POST', '/v1/messages', { ...base, temperature: 2 });
    expect(res.status).toBe(200);
    expect(res.json.object).toBe('chat.completion');
    expect((upstream.requests[upstream.requests.length - 1]!.body as { temperature: number }).temperature).toBe(1);
  });
});
