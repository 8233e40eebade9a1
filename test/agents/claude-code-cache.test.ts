import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, claudeEnv, makeSandbox, runCli, type Sandbox } from './cli.js';
import { describeCalls, MODELS, startAgentGateway, type AgentGateway } from './gateway.js';

/**
 * Issue 32 with Claude Code: the same one-shot prompt in a second session is answered from the
 * response cache (its session id, in `metadata.user_id`, is not part of the cache key), and the
 * second session prints what the first did.
 */
describe('Claude Code and the response cache (issue 32)', () => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;

  beforeAll(async () => {
    gateway = await startAgentGateway('cache', { cache: { models: { [MODELS.anthropic]: { enabled: true, ttl_seconds: 600 } } } });
    sandbox = makeSandbox('claude-code-cache');
    writeFileSync(join(sandbox.home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
  });

  const claude = (...args: string[]) =>
    runCli(bin('claude'), ['-p', ...args, '--disallowedTools', 'Bash', 'Write', 'Edit', 'NotebookEdit', 'WebFetch', 'WebSearch'], {
      cwd: sandbox.work,
      env: claudeEnv(sandbox, gateway, MODELS.anthropic),
    });

  it('a second session asking the same is served from the cache, and prints the same answer', async () => {
    const first = gateway.mark();
    const opening = await claude('Say hello in one short sentence.');
    const missed = await gateway.expectCleanRun(first, 'claude-code cache (first session)');
    expect(opening.code, opening.describe()).toBe(0);
    expect(missed.some((call) => call.cacheHit), describeCalls(missed)).toBe(false);

    const mark = gateway.mark();
    const again = await claude('Say hello in one short sentence.');
    const calls = await gateway.expectCleanRun(mark, 'claude-code cache (second session)');
    expect(again.code, again.describe()).toBe(0);
    expect(calls.length, describeCalls(calls)).toBeGreaterThan(0);
    expect(calls.every((call) => call.cacheHit), describeCalls(calls)).toBe(true);
    expect(again.stdout.trim()).toBe(opening.stdout.trim());
  });
});
