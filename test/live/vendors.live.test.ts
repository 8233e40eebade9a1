import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../../src/config/schema.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/**
 * Opt-in checks against the real vendors: `npm run test:live` with vendor keys in the
 * environment. Each vendor's case runs only when its key is set; CI never runs this folder.
 */
const env = process.env;
const LIVE: Array<{ key: string; channel: ChannelConfig; model: string; path: 'chat' | 'messages' }> = [
  { key: 'OPENAI_API_KEY', model: 'delta-4.1', path: 'chat', channel: { name: 'openai', vendor: 'openai', base_url: 'https://api.openai.com/v1', api_key: env.OPENAI_API_KEY, models: { 'delta-4.1': 'gpt-4.1' } } },
  { key: 'ARK_API_KEY', model: 'beta-seed-1-6-251015', path: 'chat', channel: { name: 'ark', vendor: 'volcengine-ark', base_url: 'https://ark.cn-beijing.volces.com/api/v3', api_key: env.ARK_API_KEY, models: { 'beta-seed-1-6-251015': 'doubao-seed-1-6-251015' } } },
  { key: 'ZHIPU_API_KEY', model: 'epsilon-4.7', path: 'chat', channel: { name: 'zhipu', vendor: 'zhipu', base_url: 'https://open.bigmodel.cn/api/paas/v4', api_key: env.ZHIPU_API_KEY, models: { 'epsilon-4.7': 'glm-4.7' } } },
  { key: 'ANTHROPIC_API_KEY', model: 'alpha-sonnet-4-5-20250929', path: 'messages', channel: { name: 'anthropic', vendor: 'anthropic', base_url: 'https://api.anthropic.com', api_key: env.ANTHROPIC_API_KEY, models: { 'alpha-sonnet-4-5-20250929': 'claude-sonnet-4-5-20250929' } } },
];
const available = LIVE.filter((l) => env[l.key]);

describe.skipIf(available.length === 0)('live vendors', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { channels: available.map((l) => l.channel) } });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1` });
  });
  afterAll(() => gateway?.stop());

  it.each(available)('$model answers through its real vendor, streamed, with usage', async ({ model, path }) => {
    const body = { model, messages: [{ role: 'user' as const, content: 'Reply with the word pong.' }], max_tokens: 64, stream: true as const, stream_options: { include_usage: true } };
    // /v1/messages is chat-shaped, so the SDK's chat call works against it with the path swapped.
    const stream = await client.chat.completions.create(body, path === 'messages' ? { path: '/messages' } : undefined);
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text.toLowerCase()).toContain('pong');
    expect(usage!.total_tokens).toBeGreaterThan(0);
  });
});
