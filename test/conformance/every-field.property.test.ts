import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeForPath } from '../../src/api/envelopes.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { startTestGateway, TEST_ADMIN_TOKEN, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';

/**
 * Issue 13's fuzz and property suite: every field of every endpoint's valid body, at any depth,
 * replaced by hostile values (huge and negative numbers, wrong types, NUL, long and empty strings,
 * deep nesting), under several fixed seeds plus one random seed per run (printed when it fails).
 * Properties: never a 5xx, every error in its family's envelope, and the gateway still serves
 * afterwards (a broken admin write must not break the key list: issue 13 item 8).
 */
const SEEDS = [1, 7, 42, Date.now() % 100_000];
const RUNS_PER_SEED = 25;

const ENDPOINTS: Array<{ path: string; valid: unknown; headers?: Record<string, string> }> = [
  { path: '/v1/chat/completions', valid: { model: 'delta-4.1', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }], max_tokens: 5, temperature: 0.5, n: 1, stream: false, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: { type: 'string' } } } } }], tool_choice: 'auto', response_format: { type: 'text' }, stop: ['x'], seed: 3, logprobs: false } },
  { path: '/v1/chat/completions', valid: { model: 'beta-seed-2.0-mini', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 5, thinking: { type: 'disabled' }, stream: true, stream_options: { include_usage: true } } },
  { path: '/v1/messages', valid: { model: 'alpha-sonnet-4-5-20250929', system: [{ type: 'text', text: 's' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { role: 'assistant', content: 'yo' }, { role: 'user', content: 'again' }], max_tokens: 5, temperature: 1, top_k: 5, stop_sequences: ['x'], thinking: { type: 'disabled' }, metadata: { user_id: 'u' } } },
  { path: '/v1/responses', valid: { model: 'beta-seed-2.0-mini', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], instructions: 'i', max_output_tokens: 5, temperature: 0.3, top_p: 0.9, stream: false, text: { format: { type: 'text' } } } },
  { path: '/v1/images/generations', valid: { model: 'gamma-3.1-flash-image', prompt: 'a cat', size: '256x256', response_format: 'b64_json', n: 1 } },
  { path: '/v1/video/generations', valid: { model: 'zeta-1.0-r2v', prompt: 'a horse', images: ['https://example.com/a.png'], duration: 5, resolution: '720P', seed: 1, parameters: { watermark: false } } },
  { path: '/videoalt/v1/videos/text2video', valid: { model_name: 'kling-v1', prompt: 'a rabbit', negative_prompt: '', duration: '5', mode: 'std', aspect_ratio: '16:9', cfg_scale: 0.5, external_task_id: 'e' } },
  { path: '/videoalt/v1/videos/multi-image2video', valid: { model_name: 'kling-v1-6', image_list: [{ image: 'https://example.com/a.png' }], prompt: 'p', duration: '5' } },
  { path: '/cloud/asset/ListAssets', valid: { model: 'cloud-asset', PageNumber: 1, PageSize: 10, Filter: { Statuses: ['Active'] } } },
  { path: '/cloud/asset/CreateAsset', valid: { model: 'cloud-asset', Name: 'n', AssetType: 'Image', URL: 'https://example.com/a.png' } },
  { path: `/v1beta/models/gamma-2.5-flash-lite:generateContent?key=${TEST_KEY}`, valid: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], systemInstruction: { parts: [{ text: 's' }] }, generationConfig: { temperature: 0.5, maxOutputTokens: 5, candidateCount: 1, topK: 3, thinkingConfig: { thinkingBudget: 0 } }, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] } },
  { path: '/admin/api/keys', valid: { name: 'fuzz', models: ['delta-4.1'], endpoints: ['chat-completions'], rpm: 10, tpm: 1000, max_parallel_requests: 2, budget_usd: 1, expires_at: '2099-01-01T00:00:00Z' }, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
  { path: '/admin/api/users', valid: { email: 'fuzz@example.org', name: 'F', role: 'user', budget_usd: 5, rpm: 5, tpm: 50, models: ['delta-4.1'], families: ['chat-completions'] }, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
];

/** Every path to a value in `value`, the root excluded: ['messages', 0, 'content'] and so on. */
function pathsOf(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...prefix, i], ...pathsOf(item, [...prefix, i])]);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
  return [];
}

const withValue = (root: unknown, path: Array<string | number>, replacement: unknown, remove: boolean): unknown => {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at = copy;
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (remove) {
    if (Array.isArray(at)) at.splice(Number(last), 1);
    else delete at[last];
  } else at[last] = replacement;
  return copy;
};

const deep = (levels: number): unknown => (levels === 0 ? 1 : [deep(levels - 1)]);
/** Tried on every field, every run (the grid); the seeded search below adds random ones. */
const GRID: unknown[] = [0, -1, 1.5, 2147483648, 1e308, 99999999999999, '', 'a\u0000b', 'x'.repeat(100_000), null, true, [], {}, '1e400', deep(70)];
const hostile = fc.oneof(
  fc.constantFrom<unknown>(...GRID, -1e308, Number.MAX_SAFE_INTEGER + 2, ' ', '\u202e', [null], { '': '' }, { __proto__: { polluted: true } }, deep(60)),
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
);

describe.each([
  { store: 'SQLite', database: async (): Promise<TestDatabase | undefined> => undefined },
  { store: 'PostgreSQL', database: createTestDatabase },
])('every field of every endpoint, hostile values, on $store (issue 13, property-based)', ({ database: makeDatabase }) => {
  let gateway: TestGateway;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await makeDatabase();
    gateway = await startTestGateway({ env: database ? { databaseUrl: database.url } : {}, file: { prices: { 'delta-4.1': { prompt_per_1m: 1, completion_per_1m: 1 } } } });
  });
  afterAll(async () => {
    await gateway.stop();
    await database?.drop();
  });

  it.each(ENDPOINTS)('$path', async ({ path, valid, headers }) => {
    const kind = envelopeForPath(path);
    const paths = pathsOf(valid);
    const check = async (field: Array<string | number>, value: unknown, remove: boolean, raw: boolean, seed: number | 'grid') => {
      let body = JSON.stringify(withValue(valid, field, value, remove && !raw));
      // Numbers JSON.stringify cannot write: 1e400 becomes Infinity when parsed.
      if (raw && value === '1e400') body = body.replace('"1e400"', '1e400');
      const response = await fetch(gateway.url + path, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers }, body });
      const text = await response.text();
      const where = `seed ${seed}: ${path} ${field.join('.')} = ${body.slice(0, 200)} → ${text.slice(0, 300)}`;
      expect(response.status, where).toBeLessThan(500);
      if (response.status >= 400) assertEnvelope(kind, JSON.parse(text));
    };
    for (const field of paths) {
      for (const value of GRID) await check(field, value, false, true, 'grid');
      await check(field, undefined, true, false, 'grid');
    }
    const mutation = fc.record({ path: fc.constantFrom(...paths), value: hostile, remove: fc.boolean(), raw: fc.boolean() });
    for (const seed of SEEDS) {
      await fc.assert(
        fc.asyncProperty(mutation, ({ path: field, value, remove, raw }) => check(field, value, remove, raw, seed)),
        { numRuns: RUNS_PER_SEED, seed },
      );
    }
    // Still serving, and the admin lists still answer after whatever was written.
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    expect((await fetch(`${gateway.url}/admin/api/keys`, { headers: admin })).status).toBe(200);
    expect((await fetch(`${gateway.url}/admin/api/users`, { headers: admin })).status).toBe(200);
  }, 120_000);
});
