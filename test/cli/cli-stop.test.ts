import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, startCli, useFreshDirs } from './cli-process.js';

/** How the gateway stops (its own file so it runs beside cli.test.ts on another worker, issue 45). */
const { freshDir } = useFreshDirs();

describe('gateway stop', () => {
  it('SIGTERM to `npm start` reaches the server: it drains and exits 0, nothing is left listening (issue 15)', async () => {
    const dataDir = freshDir();
    const root = join(import.meta.dirname, '..', '..');
    const child = spawn('npm', ['start', '--silent'], { cwd: root, env: baseEnv(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /gateway listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once('exit', () => reject(new Error(`npm start exited early: ${output}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Without exec, npm's shell died and node went on serving as an orphan.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });


  it('SIGTERM drains within GATEWAY_SHUTDOWN_TIMEOUT_MS and exits 0; idle keep-alive holds nothing; a second signal exits at once (issue 13)', async () => {
    const dataDir = freshDir();
    const config = join(dataDir, 'gateway.yaml');
    // A stream paced at 2 tokens a second lasts far longer than the drain deadline.
    writeFileSync(config, ['channels:', '  - name: slow', '    vendor: openai', '    models: { delta-4.1: gpt-4.1 }', '    simulator: { tokens_per_second: 2 }', ''].join('\n'));
    const key = 'sk-gw-shutdown-test-key-0123456789';
    const env = { GATEWAY_CONFIG: config, GATEWAY_BOOTSTRAP_KEY: key, GATEWAY_SHUTDOWN_TIMEOUT_MS: '1500' };
    const openStream = async (url: string) => {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'tell me a long story' }], stream: true }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      return reader;
    };
    const exitOf = (child: ChildProcess) =>
      new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: performance.now() })));

    const first = await startCli(dataDir, env);
    // An idle keep-alive connection, as a load balancer or SDK leaves one.
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve) => httpRequest(`${first.url}/healthz`, { agent }, (res) => res.resume().on('end', resolve)).end());
    const stream = await openStream(first.url);
    const exited = exitOf(first.child);
    const signalled = performance.now();
    first.child.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code).toBe(0);
    // The stream was given the deadline, not its whole length, and keep-alive did not hold the stop.
    expect(at - signalled).toBeGreaterThanOrEqual(1400);
    expect(at - signalled).toBeLessThan(6000);
    await stream.cancel().catch(() => undefined);
    agent.destroy();

    const second = await startCli(dataDir, env);
    const again = await openStream(second.url);
    const gone = exitOf(second.child);
    const start = performance.now();
    second.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    second.child.kill('SIGTERM');
    const end = await gone;
    expect(end.code).toBe(1);
    expect(end.at - start).toBeLessThan(1400);
    await again.cancel().catch(() => undefined);
  }, 30_000);
});
