import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { CLOUD_SETUPS, describeCalls, isCloud, expectServedBy, expectToolLoop, MODELS, startAgentGateway, type AgentGateway, type Setup } from './gateway.js';

/**
 * Gemini CLI (`gemini -p`) with GOOGLE_GEMINI_BASE_URL at the gateway and the key in GEMINI_API_KEY;
 * this version also wants the API-key auth type chosen in settings.json. Every call is
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` with `x-goog-api-key`.
 */
const SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  // Tools that write, run commands or search the web stay off; read_file is what the loop uses.
  tools: { exclude: ['run_shell_command', 'write_file', 'replace', 'web_fetch', 'google_web_search'] },
};

describe.each(['defaults', 'cross', ...CLOUD_SETUPS] as const)('Gemini CLI through the gateway (%s)', (setup: Setup) => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;

  beforeAll(async () => {
    gateway = await startAgentGateway(setup);
    sandbox = makeSandbox('gemini-cli');
    mkdirSync(join(sandbox.home, '.gemini'));
    writeFileSync(join(sandbox.home, '.gemini', 'settings.json'), JSON.stringify(SETTINGS));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
  });

  const gemini = (...args: string[]) =>
    runCli(bin('gemini'), ['--model', MODELS.gemini, ...args], {
      cwd: sandbox.work,
      env: {
        ...sandbox.env,
        GOOGLE_GEMINI_BASE_URL: gateway.url,
        GEMINI_API_KEY: gateway.key,
        // Headless runs need the working directory trusted (the interactive prompt cannot be answered).
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      },
    });

  it.runIf(!isCloud(setup))('answers a one-shot prompt', async () => {
    const mark = gateway.mark();
    const result = await gemini('-p', 'Say hello in one short sentence.');
    const calls = await gateway.expectCleanRun(mark, `gemini-cli ${setup} one-shot`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
  });

  it('streams the answer (stream-json)', async () => {
    const mark = gateway.mark();
    const result = await gemini('-p', 'Say hello in one short sentence.', '--output-format', 'stream-json');
    const calls = await gateway.expectCleanRun(mark, `gemini-cli ${setup} stream`);
    expect(result.code, result.describe()).toBe(0);
    const events = jsonLines(result.stdout);
    const deltas = events.filter((e) => e.type === 'message' && e.role === 'assistant' && e.delta === true);
    expect(deltas.length, result.describe()).toBeGreaterThan(0);
    // A greeting invites no tool: the tools the model called instead, if any, are listed.
    expect(events.filter((e) => e.type === 'tool_use').map((e) => e.tool_name), result.describe()).toEqual([]);
    expect(events.at(-1), result.describe()).toMatchObject({ type: 'result', status: 'success' });
    expect(calls.map((call) => call.streamed)).toEqual([true]);
  });

  it('runs a tool loop to its end (read_file, then an answer)', async () => {
    const mark = gateway.mark();
    const result = await gemini('-p', 'Read the file notes.txt', '--output-format', 'stream-json');
    const calls = await gateway.expectCleanRun(mark, `gemini-cli ${setup} tool-loop`);
    expect(result.code, result.describe()).toBe(0);
    const events = jsonLines(result.stdout);
    expect(events.filter((e) => e.type === 'tool_use').map((e) => e.tool_name), result.describe()).toEqual(['read_file']);
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
    expect(events.at(-1), result.describe()).toMatchObject({ type: 'result', status: 'success' });
    expectToolLoop(calls);
    expectServedBy(calls, setup, 'gemini');
  });

  it.runIf(!isCloud(setup))('continues the conversation (--resume latest resends the history)', async () => {
    const first = gateway.mark();
    const opening = await gemini('-p', 'Remember the word kumquat.');
    await gateway.expectCleanRun(first, `gemini-cli ${setup} follow-up (first turn)`);
    expect(opening.code, opening.describe()).toBe(0);

    const mark = gateway.mark();
    const result = await gemini('--resume', 'latest', '-p', 'Which word did I ask you to remember?');
    const calls = await gateway.expectCleanRun(mark, `gemini-cli ${setup} follow-up`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
    expect(calls[0]!.requestBody).toContain('kumquat');
  });
});
