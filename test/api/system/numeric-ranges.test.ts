import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_ADMIN_TOKEN, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { LIMITS } from '../../../src/validation/limits.js';

const chat = (model: string, extra: Record<string, unknown>) => ({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });
const gemini = (generationConfig: Record<string, unknown>) => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig });

/**
 * Every numeric field the gateway or a simulator acts on has a finite range, checked before any
 * work (issue 13, items 3 and 8). Each row: just past the bound (or absurdly past it) is a 400
 * naming the field; the bound itself is accepted.
 */
const CASES: Array<{ path: string; field: string; over: unknown[]; at: unknown; body: (value: unknown) => unknown }> = [
  { path: '/v1/chat/completions', field: 'n', over: [129, 2147483648, 1e308], at: LIMITS.choices, body: (n) => chat('delta-4.1', { n }) },
  // Family B's n was not validated at all; the simulator allocated until the heap died.
  { path: '/v1/chat/completions', field: 'n', over: [129, 2147483648], at: 2, body: (n) => chat('beta-seed-2.0-pro', { n }) },
  { path: '/v1/chat/completions', field: 'max_tokens', over: [LIMITS.outputTokens + 1, 1e308], at: LIMITS.outputTokens, body: (v) => chat('delta-4.1', { max_tokens: v }) },
  { path: '/v1/chat/completions', field: 'max_completion_tokens', over: [1e308], at: 100, body: (v) => chat('beta-seed-2.0-pro', { max_completion_tokens: v }) },
  { path: '/v1/chat/completions', field: 'top_logprobs', over: [21], at: 20, body: (v) => chat('delta-4.1', { logprobs: true, top_logprobs: v }) },
  { path: '/v1/responses', field: 'max_output_tokens', over: [1e308], at: 1000, body: (v) => ({ model: 'beta-seed-2.0-pro', input: 'hi', max_output_tokens: v }) },
  { path: '/v1beta/models/gamma-2.5-flash-lite:generateContent', field: 'candidateCount', over: [9, 1e308], at: 2, body: (v) => gemini({ candidateCount: v }) },
  { path: '/v1beta/models/gamma-2.5-flash-lite:generateContent', field: 'maxOutputTokens', over: [1e308], at: 1000, body: (v) => gemini({ maxOutputTokens: v }) },
  { path: '/cloud/asset/ListAssets', field: 'PageNumber', over: [1e308], at: 2, body: (v) => ({ model: 'cloud-asset', PageNumber: v }) },
];

describe('numeric ranges', () => {
  let gateway: TestGateway;
  const post = async (path: string, body: unknown, token = TEST_KEY) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-goog-api-key': token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  for (const { path, field, over, at, body } of CASES) {
    it(`${path} ${field}: past the bound is a 400 naming it, the bound is accepted`, async () => {
      for (const value of over) {
        const { status, text } = await post(path, body(value));
        expect(status, `${field}=${value}`).toBe(400);
        expect(text).toContain(field);
      }
      const { status, text } = await post(path, body(at));
      expect(status, text).not.toBe(400);
      expect(status).toBeLessThan(500);
    });
  }

  it('admin key writes refuse out-of-range numbers and dates before writing anything', async () => {
    const before = await fetch(`${gateway.url}/admin/api/keys`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    const count = ((await before.json()) as { data: unknown[] }).data.length;
    for (const extra of [{ expires_at: 99999999999999 }, { expires_at: '99999999999999' }, { rpm: 1e308 }, { tpm: LIMITS.perMinute + 1 }, { budget_usd: 1e300 }]) {
      const { status, text } = await post('/admin/api/keys', { name: 'range', ...extra }, TEST_ADMIN_TOKEN);
      expect(status, JSON.stringify(extra)).toBe(400);
      expect(text).toContain(Object.keys(extra)[0]!);
    }
    const after = await fetch(`${gateway.url}/admin/api/keys`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { data: unknown[] }).data.length).toBe(count);
    const ok = await post('/admin/api/keys', { name: 'far future', expires_at: '9999-12-31T00:00:00Z', rpm: LIMITS.perMinute }, TEST_ADMIN_TOKEN);
    expect(ok.status).toBe(201);
  });
});
