import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess } from '../helpers/instance-process.js';
import { TEST_ADMIN_TOKEN } from '../helpers/gateway.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const fingerprintOf = (keyBase64: string) => createHash('sha256').update(Buffer.from(keyBase64, 'base64')).digest('hex').slice(0, 8);

/** `gateway start` that is expected to stop: its exit code and what it wrote to stderr. */
function startExpectingRefusal(dataDir: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'vite-node'), [join(ROOT, 'src', 'cli.ts'), 'start'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDir, GATEWAY_CONFIG: '', DATABASE_URL: '', REDIS_URL: '', GATEWAY_ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent', ...env },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.once('exit', (code) => (clearTimeout(timer), resolve({ code, stderr }))));
}

/** Issue 34: with a new GATEWAY_SECRET_KEY the gateway used to start, ready, and let the simulator answer. */
describe('gateway start with a changed GATEWAY_SECRET_KEY (issue 34, real processes)', () => {
  let dataDir: string;
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-secret-process-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a runtime channel sealed with the old key: refused with its name and both fingerprints (non-zero exit); the old key starts again', async () => {
    const first = await startGatewayProcess({ name: 'first', dataDir, databaseUrl: '', file: {}, env: { GATEWAY_SECRET_KEY: oldKey } });
    try {
      const created = await fetch(`${first.url}/admin/api/channels`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'house-vllm', vendor: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'vllm-token-Q7r2x9', models: { 'delta-4.1': 'gpt-4.1' } }),
      });
      expect(created.status).toBe(201);
    } finally {
      await first.stop();
    }

    const refused = await startExpectingRefusal(dataDir, { GATEWAY_SECRET_KEY: newKey });
    expect(refused.code).not.toBe(0);
    expect(refused.code).not.toBeNull();
    expect(refused.stderr).toContain(`'house-vllm' (sealed with key ${fingerprintOf(oldKey)})`);
    expect(refused.stderr).toContain(`this instance's key is ${fingerprintOf(newKey)}`);
    expect(refused.stderr).not.toContain(oldKey);

    const again = await startGatewayProcess({ name: 'again', dataDir, databaseUrl: '', file: {}, env: { GATEWAY_SECRET_KEY: oldKey } });
    try {
      expect((await fetch(`${again.url}/readyz`)).status).toBe(200);
    } finally {
      await again.stop();
    }
  }, 90_000);
});
