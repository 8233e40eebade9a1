import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, claudeEnv, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { CLOUD_SETUPS, describeCalls, isCloud, expectServedBy, expectToolLoop, MODELS, startAgentGateway, type AgentGateway, type Setup } from './gateway.js';

/**
 * Claude Code, non-interactive (`claude -p`), pointed at the gateway as its gateway guide says:
 * ANTHROPIC_BASE_URL (the origin), ANTHROPIC_AUTH_TOKEN (sent as a Bearer token), the model ids.
 * Every call is `POST /v1/messages?beta=true` with `stream: true`.
 */

/** Tools that change the machine or reach the network stay off; Read is what the loop uses. */
const DISALLOWED = ['Bash', 'Write', 'Edit', 'NotebookEdit', 'WebFetch', 'WebSearch'];

describe.each(['defaults', 'cross', ...CLOUD_SETUPS] as const)('Claude Code through the gateway (%s)', (setup: Setup) => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;

  beforeAll(async () => {
    gateway = await startAgentGateway(setup);
    sandbox = makeSandbox('claude-code');
    // The state a finished first run leaves, so nothing waits for onboarding.
    writeFileSync(join(sandbox.home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
  });

  const claude = (...args: string[]) =>
    runCli(bin('claude'), ['-p', ...args, '--disallowedTools', ...DISALLOWED], {
      cwd: sandbox.work,
      env: claudeEnv(sandbox, gateway, MODELS.anthropic),
    });

  it.runIf(!isCloud(setup))('answers a one-shot prompt', async () => {
    const mark = gateway.mark();
    const result = await claude('Say hello in one short sentence.');
    const calls = await gateway.expectCleanRun(mark, `claude-code ${setup} one-shot`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
  });

  it('streams the answer (stream-json with partial messages)', async () => {
    const mark = gateway.mark();
    const result = await claude('Say hello in one short sentence.', '--output-format', 'stream-json', '--verbose', '--include-partial-messages');
    const calls = await gateway.expectCleanRun(mark, `claude-code ${setup} stream`);
    expect(result.code, result.describe()).toBe(0);
    const events = jsonLines(result.stdout);
    const deltas = events.filter((e) => e.type === 'stream_event' && e.event?.delta?.type === 'text_delta');
    expect(deltas.length, result.describe()).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
    expect(calls.map((call) => call.streamed)).toEqual([true]);
  });

  it('runs a tool loop to its end (Read, then an answer)', async () => {
    const mark = gateway.mark();
    const result = await claude('Read the file notes.txt', '--output-format', 'json');
    const calls = await gateway.expectCleanRun(mark, `claude-code ${setup} tool-loop`);
    expect(result.code, result.describe()).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer, result.describe()).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
    expect(answer.num_turns).toBeGreaterThanOrEqual(2);
    expect(String(answer.result).trim()).not.toBe('');
    expectToolLoop(calls);
    expectServedBy(calls, setup, 'anthropic');
  });

  it.runIf(!isCloud(setup))('continues the conversation (--continue resends the history)', async () => {
    const first = gateway.mark();
    const opening = await claude('Remember the word kumquat.');
    await gateway.expectCleanRun(first, `claude-code ${setup} follow-up (first turn)`);
    expect(opening.code, opening.describe()).toBe(0);

    const mark = gateway.mark();
    const result = await claude('--continue', 'Which word did I ask you to remember?');
    const calls = await gateway.expectCleanRun(mark, `claude-code ${setup} follow-up`);
    expect(result.code, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
    expect(calls[0]!.requestBody).toContain('kumquat');
  });
});
