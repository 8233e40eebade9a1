import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 15, "seeing what it does": at the default level (info) one structured line per request,
 * upstream failures at warn, and `x-request-id` on every answer (an incoming one kept). The
 * installed command is run as operators run it, its stdout read line by line.
 */
const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
const KEY = 'sk-gw-access-log-test-key-0123456789';

describe('access log and request ids', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-log-'));
  const lines: Array<Record<string, unknown>> = [];
  let raw = '';
  let url = '';
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const config = join(dataDir, 'gateway.yaml');
    // A channel whose upstream refuses connections, for the warn line; delta-4.1 stays on the simulator.
    writeFileSync(config, ['channels:', '  - name: dead-end', '    vendor: zhipu', '    base_url: http://127.0.0.1:9/v4', '    api_key: upstream-secret-abc', '    max_retries: 1', '    models: { epsilon-4.7: glm-4.7 }', ''].join('\n'));
    const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_DATA_DIR: dataDir, GATEWAY_CONFIG: config, GATEWAY_BOOTSTRAP_KEY: KEY, PORT: '0', HOST: '127.0.0.1' };
    delete env.LOG_LEVEL;
    const child = spawn(process.execPath, [CLI, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        raw += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(raw);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${raw}`)));
    });
    stop = () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')));
  });
  afterAll(async () => {
    await stop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const parsed = () => {
    lines.length = 0;
    for (const line of raw.split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    return lines;
  };
  const until = async (find: () => Record<string, unknown> | undefined) => {
    for (let i = 0; i < 100; i++) {
      const found = find();
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no such log line in: ${raw}`);
  };
  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('writes one line per request with key id, model, channel, status, timings and tokens; never the secret', async () => {
    const answer = await post('/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, { 'x-request-id': 'trace-abc-123' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toBe('trace-abc-123');
    const line = await until(() => parsed().find((l) => l.msg === 'request' && l.reqId === 'trace-abc-123'));
    expect(line).toMatchObject({ level: 30, method: 'POST', url: '/v1/chat/completions', status: 200, key: expect.stringMatching(/^key_/), family: 'chat-completions', model: 'delta-4.1', channel: 'simulator-openai', prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(line.ms).toEqual(expect.any(Number));
    expect(parsed().filter((l) => l.reqId === 'trace-abc-123' && l.msg === 'request')).toHaveLength(1);
    expect(raw).not.toContain(KEY);
  });

  it('every answer carries x-request-id, errors and health checks included; a strange incoming id is replaced', async () => {
    const health = await fetch(`${url}/healthz`);
    expect(health.headers.get('x-request-id')).toMatch(/^req_/);
    const refused = await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer sk-gw-wrong', 'x-request-id': 'has spaces and "quotes"' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
    const line = await until(() => parsed().find((l) => l.msg === 'request' && l.status === 401));
    expect(line.key).toBeUndefined();
  });

  it('logs each failed upstream attempt at warn (channel, attempt), and the retries in the access line', async () => {
    const answer = await post('/v1/responses', { model: 'epsilon-4.7', input: 'hi' }, { 'x-request-id': 'trace-dead-end' });
    expect(answer.status).toBeGreaterThanOrEqual(500);
    await until(() => parsed().find((l) => l.msg === 'request' && l.reqId === 'trace-dead-end'));
    const warnings = parsed().filter((l) => l.level === 40 && l.reqId === 'trace-dead-end' && l.msg === 'upstream attempt failed');
    expect(warnings.map((w) => [w.channel, w.attempt])).toEqual([['dead-end', 1], ['dead-end', 2]]);
    expect(parsed().find((l) => l.msg === 'request' && l.reqId === 'trace-dead-end')).toMatchObject({ channel: 'dead-end', retries: 1 });
    expect(raw).not.toContain('upstream-secret-abc');
  });
});
