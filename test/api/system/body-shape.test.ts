import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { MAX_JSON_DEPTH } from '../../../src/validation/json-shape.js';

/** Bodies shaped to hurt recursive code or to smuggle ±Infinity are refused before any work (issue 13). */
describe('request body shape', () => {
  let gateway: TestGateway;
  const primary = () => gateway.deps.simulators.get('primary')!;
  const post = async (path: string, raw: string) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: raw,
    });
    return { status: response.status, json: (await response.json()) as Record<string, any> };
  };
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  beforeAll(async () => {
    gateway = await startTestGateway({
      file: {
        routing: { circuit_threshold: 1, circuit_cool_down_ms: 60_000 },
        channels: [{ name: 'primary', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' } }],
      },
    });
  });
  afterAll(() => gateway.stop());

  it('a 10,000-level nested body is a 400 in the family envelope, and never reaches or trips the channel', async () => {
    const before = primary().requests.length;
    const raw = `{"model":"delta-4.1","messages":[{"role":"user","content":"hi"}],"metadata":${nested(10_000)}}`;
    for (let i = 0; i < 3; i++) {
      const { status, json } = await post('/v1/chat/completions', raw);
      expect(status).toBe(400);
      expect(json.error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    }
    expect(primary().requests.length).toBe(before);
    // One failure would have opened the circuit (threshold 1): the channel still serves.
    const ok = await post('/v1/chat/completions', JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }));
    expect(ok.status).toBe(200);
  });

  it('answers deep nesting in each family envelope', async () => {
    const google = await post('/v1beta/models/gamma-2.5-flash-lite:generateContent', `{"contents":${nested(5000)}}`);
    expect(google.status).toBe(400);
    expect(google.json.error.status).toBe('INVALID_ARGUMENT');
    const general = await post('/v1/responses', `{"model":"beta-seed-2.0-pro","input":${nested(5000)}}`);
    expect(general.status).toBe(400);
  });

  it('nesting up to the limit, and brackets inside strings, are fine', async () => {
    const tricky = `"[[[{{{ \\" [[[ \\\\" ${'{'.repeat(500)}`;
    const raw = `{"model":"delta-4.1","messages":[{"role":"user","content":${JSON.stringify(tricky)}}],"metadata":{"a":${nested(MAX_JSON_DEPTH - 3)}}}`;
    const { status } = await post('/v1/chat/completions', raw);
    expect(status).not.toBe(500);
    expect(status === 200 || status === 400).toBe(true);
    const exact = `{"model":"delta-4.1","messages":[{"role":"user","content":${JSON.stringify(tricky)}}]}`;
    expect((await post('/v1/chat/completions', exact)).status).toBe(200);
  });

  it('a number JSON turns into Infinity (1e400) is a 400 naming the field, even in fields the schema does not list', async () => {
    for (const field of ['max_tokens', 'max_completion_tokens', 'seed']) {
      const { status, json } = await post('/v1/chat/completions', `{"model":"delta-4.1","messages":[{"role":"user","content":"hi"}],"${field}":1e400}`);
      expect(status).toBe(400);
      expect(json.error.message).toContain(field);
    }
    const negative = await post('/v1/chat/completions', `{"model":"delta-4.1","messages":[{"role":"user","content":"hi"}],"temperature":-1E+999}`);
    expect(negative.status).toBe(400);
    // Ordinary exponents are numbers like any other.
    const fine = await post('/v1/chat/completions', `{"model":"delta-4.1","messages":[{"role":"user","content":"1e400 in text"}],"temperature":5e-1}`);
    expect(fine.status).toBe(200);
  });

  it('issue 34: a key given twice in one object (the second escaped) is a 400 in each family envelope, before any upstream', async () => {
    const before = primary().requests.length;
    const chat = await post('/v1/chat/completions', String.raw`{"model":"delta-4.1","\u006dodel":"beta-seed-2.0-pro","messages":[{"role":"user","content":"hi"}]}`);
    expect(chat.status).toBe(400);
    expect(chat.json.error.message).toContain('same key twice');
    const nestedTwice = await post('/v1/chat/completions', `{"model":"delta-4.1","messages":[{"role":"user","content":"hi","role":"system"}]}`);
    expect(nestedTwice.status).toBe(400);
    const anthropic = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: String.raw`{"model":"delta-4.1","max_tokens":5,"\u006dodel":"other","messages":[{"role":"user","content":"hi"}]}`,
    });
    expect(anthropic.status).toBe(400);
    assertEnvelope('anthropic', await anthropic.json());
    assertEnvelope('chat', chat.json);
    const google = await post('/v1beta/models/gamma-2.5-flash-lite:generateContent', `{"contents":[{"role":"user","role":"model","parts":[{"text":"hi"}]}]}`);
    expect(google.status).toBe(400);
    expect(google.json.error.status).toBe('INVALID_ARGUMENT');
    expect(primary().requests.length).toBe(before);
    // Colons inside strings and keys repeated in different objects are fine.
    const fine = await post('/v1/chat/completions', `{"model":"delta-4.1","messages":[{"role":"user","content":"a:b \\":\\" c"},{"role":"assistant","content":"x"}]}`);
    expect(fine.status).toBe(200);
  });
});
