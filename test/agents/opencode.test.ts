import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { describeCalls, expectToolLoop, MODELS, startAgentGateway, type AgentGateway, type Setup } from './gateway.js';

/**
 * opencode (`opencode run`) with the gateway as an OpenAI-compatible provider in its config
 * (`@ai-sdk/openai-compatible`, `baseURL` = the gateway's /v1): streamed `/v1/chat/completions`
 * with `stream_options.include_usage`.
 */
const config = (gateway: AgentGateway) => ({
  $schema: 'https://opencode.ai/config.json',
  autoupdate: false,
  share: 'disabled',
  model: `gateway/${MODELS.chat}`,
  provider: {
    gateway: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Model Gateway',
      options: { baseURL: `${gateway.url}/v1`, apiKey: gateway.key },
      models: { [MODELS.chat]: { name: MODELS.chat } },
    },
  },
  // No session-title call beside each prompt: a run's model calls are the conversation's own.
  agent: { title: { disable: true } },
  // Tools that change the machine or reach the network stay off; read is what the loop uses.
  tools: { bash: false, write: false, edit: false, webfetch: false },
});

/**
 * opencode installs `@opencode-ai/plugin` from the npm registry into each config directory unless
 * that directory's package.json and lockfile already list it: listing it keeps the run offline
 * (nothing in these runs uses a plugin).
 */
function sealConfigDirectory(home: string): void {
  const dir = join(home, '.config', 'opencode');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  const dependencies = { '@opencode-ai/plugin': '1.18.33' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies } } }));
}

describe.each(['defaults', 'cross'] as const)('opencode through the gateway (%s)', (setup: Setup) => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;
  let configFile: string;

  beforeAll(async () => {
    gateway = await startAgentGateway(setup);
    sandbox = makeSandbox('opencode');
    sealConfigDirectory(sandbox.home);
    configFile = join(sandbox.home, 'opencode.json');
    writeFileSync(configFile, JSON.stringify(config(gateway)));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
  });

  const opencode = (...args: string[]) =>
    runCli(bin('opencode'), ['run', ...args], {
      cwd: sandbox.work,
      env: {
        ...sandbox.env,
        OPENCODE_CONFIG: configFile,
        // Nothing but the gateway: no update check, model catalogue, LSP download, plugins or sharing.
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_SHARE: '1',
        OPENCODE_DISABLE_CLAUDE_CODE: '1',
        OPENCODE_PURE: '1',
      },
    });

  /** The run's last step ended with the model's answer (not a tool call, not an error). */
  const expectFinished = (events: any[], describe: string) => {
    expect(events.filter((e) => e.type === 'error'), describe).toEqual([]);
    expect(events.filter((e) => e.type === 'step_finish').at(-1)?.part?.reason, describe).toBe('stop');
  };

  it('answers a one-shot prompt', async () => {
    const mark = gateway.mark();
    const result = await opencode('Say hello in one short sentence.');
    const calls = await gateway.expectCleanRun(mark, `opencode ${setup} one-shot`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
  });

  it('streams the answer (--format json events)', async () => {
    const mark = gateway.mark();
    const result = await opencode('--format', 'json', 'Say hello in one short sentence.');
    const calls = await gateway.expectCleanRun(mark, `opencode ${setup} stream`);
    expect(result.code, result.describe()).toBe(0);
    const events = jsonLines(result.stdout);
    const text = events.filter((e) => e.type === 'text').map((e) => String(e.part?.text ?? '')).join('');
    expect(text.trim(), result.describe()).not.toBe('');
    expectFinished(events, result.describe());
    expect(calls.map((call) => call.streamed)).toEqual([true]);
  });

  it('runs a tool loop to its end (read, then an answer)', async () => {
    const mark = gateway.mark();
    const result = await opencode('--format', 'json', 'Read the file notes.txt');
    const calls = await gateway.expectCleanRun(mark, `opencode ${setup} tool-loop`);
    expect(result.code, result.describe()).toBe(0);
    const events = jsonLines(result.stdout);
    expect(events.filter((e) => e.type === 'tool_use').map((e) => e.part?.tool), result.describe()).toEqual(['read']);
    expectFinished(events, result.describe());
    expectToolLoop(calls);
  });

  it('continues the conversation (--continue resends the history)', async () => {
    const first = gateway.mark();
    const opening = await opencode('Remember the word kumquat.');
    await gateway.expectCleanRun(first, `opencode ${setup} follow-up (first turn)`);
    expect(opening.code, opening.describe()).toBe(0);

    const mark = gateway.mark();
    const result = await opencode('--continue', 'Which word did I ask you to remember?');
    const calls = await gateway.expectCleanRun(mark, `opencode ${setup} follow-up`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
    expect(calls[0]!.requestBody).toContain('kumquat');
  });
});
