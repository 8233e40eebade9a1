import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicSimulator } from '../../src/providers/anthropic/simulator.js';
import { createGeminiSimulator } from '../../src/providers/gemini/simulator.js';
import { openaiSimulator } from '../../src/providers/openai/simulator.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';

/** About 2,000 tokens of a stable prefix (a system prompt, a document). */
const LONG = Array.from({ length: 400 }, (_, i) => `Clause ${i}: the parties agree to the terms.`).join(' ');

const post = async (sim: RunningSimulator, path: string, body: unknown, headers: Record<string, string>) => {
  const response = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return (await response.json()) as Record<string, any>;
};

/** The simulators report a repeated long prefix as cached, in each vendor's shape (issue 21). */
describe('simulator prompt caching (issue 21)', () => {
  const sims: RunningSimulator[] = [];
  const start = async (spec: Parameters<typeof startSimulator>[0]) => {
    const sim = await startSimulator(spec);
    sims.push(sim);
    return sim;
  };
  afterAll(() => Promise.all(sims.map((sim) => sim.close())));

  it('OpenAI: prompt_tokens_details.cached_tokens once a prefix of 1024+ tokens repeats, in steps of 128; short prompts never', async () => {
    const sim = await start(openaiSimulator);
    const ask = (question: string, system = LONG) =>
      post(sim, '/v1/chat/completions', { model: 'gpt-4.1', messages: [{ role: 'system', content: system }, { role: 'user', content: question }] }, { authorization: 'Bearer k' });
    const first = await ask('What is clause 3?');
    expect(first.usage.prompt_tokens).toBeGreaterThan(1_024);
    expect(first.usage.prompt_tokens_details.cached_tokens).toBe(0);
    const second = await ask('And clause 9?');
    expect(second.usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1_024);
    expect(second.usage.prompt_tokens_details.cached_tokens % 128).toBe(0);
    expect(second.usage.prompt_tokens_details.cached_tokens).toBeLessThanOrEqual(second.usage.prompt_tokens);
    expect((await ask('hi', 'short')).usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect((await ask('hi again', 'short')).usage.prompt_tokens_details.cached_tokens).toBe(0);
  });

  it('Anthropic: a cache_control prefix is written first (5-minute or 1-hour), read after; input_tokens exclude both', async () => {
    const sim = await start(anthropicSimulator);
    const headers = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
    const ask = (ttl?: '1h') =>
      post(sim, '/v1/messages', {
        model: 'claude-sonnet-4-5-20250929',
        max_tokens: 64,
        messages: [{ role: 'user', content: [{ type: 'text', text: LONG, cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } }, { type: 'text', text: 'Summarise.' }] }],
      }, headers);
    const written = await ask();
    expect(written.usage.cache_creation_input_tokens).toBeGreaterThan(1_024);
    expect(written.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: written.usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 });
    expect(written.usage.cache_read_input_tokens).toBe(0);
    const read = await ask();
    expect(read.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: written.usage.cache_creation_input_tokens, input_tokens: written.usage.input_tokens });
    const plain = await post(sim, '/v1/messages', { model: 'claude-sonnet-4-5-20250929', max_tokens: 64, messages: [{ role: 'user', content: LONG }] }, headers);
    expect(plain.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    const hour = await start(anthropicSimulator);
    const hourly = await post(hour, '/v1/messages', {
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'text', text: LONG, cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
    }, headers);
    expect(hourly.usage.cache_creation.ephemeral_1h_input_tokens).toBe(hourly.usage.cache_creation_input_tokens);
  });

  it('Gemini: cachedContentTokenCount on a repeated long prefix (implicit caching)', async () => {
    const sim = await start(createGeminiSimulator());
    const ask = (question: string) =>
      post(sim, '/v1beta/models/gemini-2.5-flash:generateContent', { systemInstruction: { parts: [{ text: LONG }] }, contents: [{ role: 'user', parts: [{ text: question }] }] }, { 'x-goog-api-key': 'k' });
    expect((await ask('one')).usageMetadata.cachedContentTokenCount).toBeUndefined();
    const second = await ask('two');
    expect(second.usageMetadata.cachedContentTokenCount).toBeGreaterThanOrEqual(1_024);
    expect(second.usageMetadata.cachedContentTokenCount).toBeLessThanOrEqual(second.usageMetadata.promptTokenCount);
  });
});

// Simulated answers are free unless the operator prices them (issue 35): these are the sheet's figures for the models behind them.
const SHEET_PRICES = { 'delta-4.1': { prompt_per_1m: 2, cached_prompt_per_1m: 0.5, completion_per_1m: 8 }, 'gamma-2.5-flash-lite': { prompt_per_1m: 0.1, completion_per_1m: 0.4 } };

describe('priced simulator models show non-zero costs (issues 21, 35)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: SHEET_PRICES } });
  });
  afterAll(() => gateway.stop());

  it('bills the simulator at the operator\'s prices, a repeated prefix at the cached price', async () => {
    const ask = (question: string) =>
      call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'system', content: LONG }, { role: 'user', content: question }] });
    const first = await ask('What is clause 3?');
    const second = await ask('And clause 9?');
    expect(second.json.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    const native = await call(gateway, 'POST', `/v1beta/models/gamma-2.5-flash-lite:generateContent?key=${TEST_KEY}`, { contents: [{ parts: [{ text: 'hi' }] }] }, {});
    expect(native.status).toBe(200);
    await gateway.deps.usage.flush();
    const rows = await gateway.deps.db.selectFrom('usage_events').selectAll().orderBy('id').execute();
    expect(rows.every((row) => row.cost_usd > 0)).toBe(true);
    const [plain, cached] = rows;
    // gpt-4.1 behind delta-4.1: $2 input, $0.50 cached input, $8 output.
    const cachedTokens = second.json.usage.prompt_tokens_details.cached_tokens as number;
    expect(cached!.cached_tokens).toBe(cachedTokens);
    const expected = ((second.json.usage.prompt_tokens - cachedTokens) * 2 + cachedTokens * 0.5 + second.json.usage.completion_tokens * 8) / 1e6;
    expect(Math.abs(cached!.cost_usd - expected)).toBeLessThan(1e-9);
    expect(plain!.cost_usd).toBeCloseTo((first.json.usage.prompt_tokens * 2 + first.json.usage.completion_tokens * 8) / 1e6, 9);
    expect(JSON.parse(cached!.billed_price!)).toMatchObject({ prompt_per_1m: 2, cached_prompt_per_1m: 0.5, completion_per_1m: 8 });
    const detail = await admin(gateway, 'GET', `/requests/${cached!.entry_id}`);
    expect(detail.json.cost_lines.map((line: { dimension: string }) => line.dimension)).toEqual(['input', 'cached_input', 'output']);
    expect(detail.json.cost_lines.reduce((sum: number, line: { usd: number }) => sum + line.usd, 0)).toBeCloseTo(cached!.cost_usd, 9);
  });
});
