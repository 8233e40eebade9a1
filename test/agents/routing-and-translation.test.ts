import Anthropic from '@anthropic-ai/sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicSimulator } from '../../src/providers/anthropic/simulator.js';
import { openaiSimulator } from '../../src/providers/openai/simulator.js';
import { startSimulator, type RunningSimulator, type SimulatorSpec } from '../../src/simulator/server.js';
import { renderPng } from '../../src/simulator/png-image.js';
import { bin, claudeEnv, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { describeCalls, expectToolLoop, startAgentGateway, type AgentGateway } from './gateway.js';

/**
 * Issue 33's rows with real clients: Codex on an OpenAI-compatible server that speaks chat only
 * (DeepSeek, many vLLM and Ollama setups: `/v1/responses` is a 404 there), Codex's `view_image`
 * on an Anthropic channel (the picture must arrive as an image block, not as base64 text), and a
 * 200-request run with a shared 3,000-character system prompt on two weighted channels while a
 * Claude Code session keeps to one channel. The upstreams are real HTTP servers in this process
 * (the gateway's simulators), so what the gateway sent them can be read back.
 */

const CODEX_CHAT_ONLY = 'beta-seed-2.0-code';
const CODEX_ON_CLAUDE = 'beta-seed-2.0-pro';
const WEIGHTED = 'alpha-sonnet-4-5-20250929';

/** The OpenAI simulator with only chat completions: anything else is the 404 a chat-only server gives. */
const chatOnly: SimulatorSpec = {
  ...openaiSimulator,
  handle: (req, res) => (req.path === '/v1/chat/completions' ? openaiSimulator.handle(req, res) : Promise.resolve(false)),
};

const codexConfig = (gateway: AgentGateway): string => `
model_provider = "gateway"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.gateway]
name = "Model Gateway"
base_url = "${gateway.url}/v1"
env_key = "GATEWAY_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
apps = false
`;

/** A support bot's fixed instructions, well over the 2,000 characters that once named every request "one conversation". */
const SYSTEM = Array.from({ length: 40 }, (_, i) => `Rule ${i + 1}: answer politely, cite the order number, and never promise a refund before checking.`).join(' ').slice(0, 3000);

describe('routing and translation with real clients (issue 33)', () => {
  let chatServer: RunningSimulator;
  let claudeServer: RunningSimulator;
  let gateway: AgentGateway;
  let sandbox: Sandbox;

  beforeAll(async () => {
    chatServer = await startSimulator(chatOnly);
    claudeServer = await startSimulator(anthropicSimulator);
    gateway = await startAgentGateway('routing', {
      channels: [
        // No `responses` setting: a base URL other than api.openai.com is translated to chat.
        { name: 'chat-only-server', vendor: 'openai', base_url: `${chatServer.url}/v1`, api_key: 'sk-local-vllm', models: { [CODEX_CHAT_ONLY]: 'gpt-4.1' } },
        { name: 'claude', vendor: 'anthropic', base_url: claudeServer.url, api_key: 'sk-ant-local', models: { [CODEX_ON_CLAUDE]: 'claude-sonnet-4-5-20250929' } },
        { name: 'heavy', vendor: 'anthropic', models: { [WEIGHTED]: 'claude-sonnet-4-5-20250929' }, weight: 3 },
        { name: 'light', vendor: 'anthropic', models: { [WEIGHTED]: 'claude-sonnet-4-5-20250929' }, weight: 1 },
      ],
    });
    sandbox = makeSandbox('routing');
    mkdirSync(join(sandbox.home, '.codex'));
    writeFileSync(join(sandbox.home, '.codex', 'config.toml'), codexConfig(gateway));
    writeFileSync(join(sandbox.home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  });
  afterAll(async () => {
    await gateway?.stop();
    await chatServer?.close();
    await claudeServer?.close();
    sandbox?.remove();
  });

  const codex = (model: string, ...args: string[]) =>
    runCli(bin('codex'), ['exec', '--skip-git-repo-check', '-m', model, ...args], {
      cwd: sandbox.work,
      env: { ...sandbox.env, CODEX_HOME: join(sandbox.home, '.codex'), GATEWAY_API_KEY: gateway.key },
    });

  it('Codex finishes a tool loop on a chat-only server: its Responses calls are translated, none reaches /responses', async () => {
    const mark = gateway.mark();
    chatServer.requests.length = 0;
    const result = await codex(CODEX_CHAT_ONLY, '--json', 'Use get_goal and tell me what it says.');
    const calls = await gateway.expectCleanRun(mark, 'codex chat-only tool-loop');
    expect(result.code, result.describe()).toBe(0);
    expect(jsonLines(result.stdout).at(-1)?.type, result.describe()).toBe('turn.completed');
    expectToolLoop(calls);
    expect(calls.every((call) => call.line.url.startsWith('/v1/responses') && call.line.channel === 'chat-only-server'), describeCalls(calls)).toBe(true);
    const paths = chatServer.requests.map((request) => `${request.method} ${request.path}`);
    expect(paths.length).toBe(calls.length);
    expect(new Set(paths)).toEqual(new Set(['POST /v1/chat/completions']));
  });

  it("Codex's view_image on an Anthropic channel reaches Claude as an image block, not as text", async () => {
    writeFileSync(join(sandbox.work, 'chart.png'), renderPng(64, 48));
    const mark = gateway.mark();
    claudeServer.requests.length = 0;
    const result = await codex(CODEX_ON_CLAUDE, '--json', 'Use view_image to look at chart.png and describe it.');
    const calls = await gateway.expectCleanRun(mark, 'codex view_image on anthropic');
    expect(result.code, result.describe()).toBe(0);
    expectToolLoop(calls);
    // The call that carried the picture back, as Claude received it.
    const sent = claudeServer.requests.map((request) => request.text ?? JSON.stringify(request.body));
    const withImage = sent.filter((text) => text.includes('"type":"image"'));
    expect(withImage.length, `${sent.length} Anthropic requests; none held an image block`).toBeGreaterThan(0);
    const last = JSON.parse(withImage.at(-1)!) as { messages: Array<{ role: string; content: unknown }> };
    const blocks = last.messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Array<Record<string, any>>) : []));
    const nested = blocks.flatMap((block) => (block.type === 'tool_result' && Array.isArray(block.content) ? (block.content as Array<Record<string, any>>) : []));
    const image = [...blocks, ...nested].find((block) => block.type === 'image');
    expect(image?.source).toMatchObject({ type: 'base64', media_type: expect.stringMatching(/^image\//) });
    expect(String(image!.source.data).length).toBeGreaterThan(50);
    // Never the picture as text: no text part or string tool result holds base64 image data.
    const texts = [...blocks, ...nested].flatMap((block) => (block.type === 'text' ? [String(block.text)] : block.type === 'tool_result' && typeof block.content === 'string' ? [block.content] : []));
    expect(texts.some((text) => /data:image\/|iVBORw0KGgo|\/9j\/4/.test(text))).toBe(false);
  });

  it('spreads 200 Anthropic SDK requests with one 3,000-character system prompt by weight (65-85% on weight 3)', async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 });
    const mark = gateway.mark();
    for (let i = 0; i < 200; i++) {
      await client.messages.create({ model: WEIGHTED, max_tokens: 64, system: SYSTEM, messages: [{ role: 'user', content: `Question ${i}: where is order ${1000 + i * 7}?` }] });
    }
    const calls = await gateway.expectCleanRun(mark, 'anthropic-sdk weighted run');
    expect(calls).toHaveLength(200);
    const heavy = calls.filter((call) => call.line.channel === 'heavy').length / calls.length;
    expect(heavy, `share on the weight-3 channel`).toBeGreaterThanOrEqual(0.65);
    expect(heavy).toBeLessThanOrEqual(0.85);
  });

  it('keeps each Claude Code session on one channel of the two', async () => {
    const claude = (...args: string[]) =>
      runCli(bin('claude'), ['-p', ...args, '--disallowedTools', 'Bash', 'Write', 'Edit', 'NotebookEdit', 'WebFetch', 'WebSearch'], {
        cwd: sandbox.work,
        env: claudeEnv(sandbox, gateway, WEIGHTED),
      });
    const homes: string[] = [];
    for (let session = 0; session < 3; session++) {
      const mark = gateway.mark();
      const result = await claude(`Read the file notes.txt (session ${session})`, '--output-format', 'json');
      const calls = await gateway.expectCleanRun(mark, `claude-code weighted session ${session}`);
      expect(result.code, result.describe()).toBe(0);
      expectToolLoop(calls);
      const channels = new Set(calls.map((call) => call.line.channel));
      expect(channels.size, `${describeCalls(calls)} on ${[...channels].join(', ')}`).toBe(1);
      homes.push([...channels][0]!);
    }
    expect(homes.every((home) => home === 'heavy' || home === 'light')).toBe(true);
  });
});
