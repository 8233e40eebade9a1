import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startTestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';
import { openaiSimulator } from '../../src/providers/openai/simulator.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { parseSecretKey, SECRET_KEY_FILE } from '../../src/keys/secret-box.js';

const fingerprintOf = (keyText: string) => createHash('sha256').update(parseSecretKey(keyText, 'key')).digest('hex').slice(0, 8);
const chat = (gateway: { url: string }) => call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });

/**
 * Issue 34: a deleted data/secret.key used to make runtime channels vanish while /readyz said
 * ready, and the simulator answered (and billed) for the operator's model.
 */
describe('channel credentials sealed with a key this instance lacks (issue 34)', () => {
  let upstream: RunningSimulator;
  let dataDir: string;
  beforeAll(async () => {
    upstream = await startSimulator(openaiSimulator);
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-sealed-'));
  });
  afterAll(async () => {
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a lost secret.key stops the start naming the channel and both keys; the escape hatch serves nothing for its models and is not ready', async () => {
    const first = await startTestGateway({ dataDir });
    const created = await admin(first, 'POST', '/channels', { name: 'house-vllm', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'vllm-token-Q7r2x9', models: { 'delta-4.1': 'gpt-4.1' } });
    expect(created.status, created.text).toBe(201);
    expect((await chat(first)).status).toBe(200);
    await first.stop({ keepData: true });

    const lost = readFileSync(join(dataDir, SECRET_KEY_FILE), 'utf8');
    unlinkSync(join(dataDir, SECRET_KEY_FILE));
    const refusal = await startTestGateway({ dataDir }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refusal).toContain(`'house-vllm' (sealed with key ${fingerprintOf(lost)})`);
    // A new key was generated in the meantime: it is named too, so the operator can tell them apart.
    expect(refusal).toContain(`this instance's key is ${fingerprintOf(readFileSync(join(dataDir, SECRET_KEY_FILE), 'utf8'))}`);

    // The warning is written before the app's logger exists: it goes to stderr, not nowhere.
    const stderr = vi.spyOn(process.stderr, 'write');
    const hatch = await startTestGateway({ dataDir, env: { allowUnopenableChannels: true } });
    const warned = stderr.mock.calls.map(([chunk]) => String(chunk)).join('');
    stderr.mockRestore();
    expect(warned).toContain("'house-vllm' (sealed with key");
    try {
      const ready = await fetch(`${hatch.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'unavailable', channels: ['house-vllm'] });
      const answer = await chat(hatch);
      expect(answer.status).not.toBe(200);
      expect(answer.text).not.toContain('simulated');
      // The operator removes it (or re-creates it with its credentials), and the instance is ready again.
      expect((await admin(hatch, 'DELETE', '/channels/house-vllm')).status).toBe(204);
      expect((await fetch(`${hatch.url}/readyz`)).status).toBe(200);
    } finally {
      await hatch.stop({ keepData: true });
    }
  });
});
