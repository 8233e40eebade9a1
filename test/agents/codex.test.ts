import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { CLOUD_SETUPS, describeCalls, isCloud, expectServedBy, expectToolLoop, MODELS, startAgentGateway, type AgentGateway, type Setup } from './gateway.js';

/**
 * Codex (`codex exec`) with the gateway as a custom model provider in ~/.codex/config.toml
 * (`wire_api = "responses"`): every call is a streamed `POST {base_url}/responses` that resends
 * the whole history (reasoning items, function calls and their outputs), `store: false`.
 */

/** The provider, no approvals, a read-only sandbox, and no traffic but the gateway's. */
const config = (gateway: AgentGateway): string => `
model = "${MODELS.openai}"
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

describe.each(['defaults', 'cross', ...CLOUD_SETUPS] as const)('Codex through the gateway (%s)', (setup: Setup) => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;

  beforeAll(async () => {
    gateway = await startAgentGateway(setup);
    sandbox = makeSandbox('codex');
    mkdirSync(join(sandbox.home, '.codex'));
    writeFileSync(join(sandbox.home, '.codex', 'config.toml'), config(gateway));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
  });

  const codex = (...args: string[]) =>
    runCli(bin('codex'), ['exec', '--skip-git-repo-check', ...args], {
      cwd: sandbox.work,
      env: { ...sandbox.env, CODEX_HOME: join(sandbox.home, '.codex'), GATEWAY_API_KEY: gateway.key },
    });

  it.runIf(!isCloud(setup))('answers a one-shot prompt', async () => {
    const mark = gateway.mark();
    const result = await codex('Say hello in one short sentence.');
    const calls = await gateway.expectCleanRun(mark, `codex ${setup} one-shot`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
  });

  it('streams the answer (--json events)', async () => {
    const mark = gateway.mark();
    const result = await codex('--json', 'Say hello in one short sentence.');
    const calls = await gateway.expectCleanRun(mark, `codex ${setup} stream`);
    expect(result.code, result.describe()).toBe(0);
    const events = jsonLines(result.stdout);
    const messages = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message');
    expect(messages.length, result.describe()).toBe(1);
    expect(String(messages[0].item.text).trim()).not.toBe('');
    expect(events.at(-1)?.type, result.describe()).toBe('turn.completed');
    expect(calls.map((call) => call.streamed)).toEqual([true]);
  });

  it('runs a tool loop to its end (get_goal, then an answer)', async () => {
    const mark = gateway.mark();
    // get_goal takes no arguments and changes nothing: the safest of Codex's own tools to call.
    const result = await codex('--json', 'Use get_goal and tell me what it says.');
    const calls = await gateway.expectCleanRun(mark, `codex ${setup} tool-loop`);
    expect(result.code, result.describe()).toBe(0);
    expect(jsonLines(result.stdout).at(-1)?.type, result.describe()).toBe('turn.completed');
    expectToolLoop(calls);
    expectServedBy(calls, setup, 'openai');
  });

  it.runIf(!isCloud(setup))('continues the conversation (exec resume --last resends the history)', async () => {
    const first = gateway.mark();
    const opening = await codex('Remember the word kumquat.');
    await gateway.expectCleanRun(first, `codex ${setup} follow-up (first turn)`);
    expect(opening.code, opening.describe()).toBe(0);

    const mark = gateway.mark();
    const result = await codex('resume', '--last', 'Which word did I ask you to remember?');
    const calls = await gateway.expectCleanRun(mark, `codex ${setup} follow-up`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
    expect(calls[0]!.requestBody).toContain('kumquat');
  });
});
