import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';
import { TEST_KEY } from '../helpers/gateway.js';
import { LOCK_FILE } from '../../src/db/data-dir-lock.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITE_NODE = join(ROOT, 'node_modules', '.bin', 'vite-node');
const IMAGE = { model: 'gamma-3.1-flash-image', prompt: 'a cat', size: '256x256', response_format: 'url' };

/** `gateway <args>` from the sources, as an operator runs it next to a running gateway. */
function cli(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(VITE_NODE, [join(ROOT, 'src', 'cli.ts'), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GATEWAY_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', GATEWAY_CONFIG: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

const post = (gateway: GatewayProcess, path: string, body: unknown, secret = TEST_KEY) =>
  fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Every file and folder under `dir` with its permission bits, but the test's own config files. */
function modesUnder(dir: string): Map<string, number> {
  const modes = new Map<string, number>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.name.endsWith('.gateway.yaml')) continue;
    const path = join(entry.parentPath, entry.name);
    modes.set(path, statSync(path).mode & 0o777);
  }
  return modes;
}

/**
 * Issue 34 item 7: one gateway per embedded store, and its files its user's alone. Real
 * processes: `gateway start` twice on one directory, the CLI beside a running gateway, a SIGKILL
 * leaving the lock behind, and a shell umask of 022.
 */
describe('the data directory of the embedded store (issue 34)', () => {
  const root = mkdtempSync(join(tmpdir(), 'gateway-data-dir-'));
  const dataDir = join(root, 'data');
  const start = (name: string) => startGatewayProcess({ name, dataDir, databaseUrl: '', file: {} });
  let first: GatewayProcess | undefined;
  let previousUmask: number;

  beforeAll(async () => {
    // The umask most shells have: what the gateway creates would be world-readable without its own.
    previousUmask = process.umask(0o022);
    // An operator's `mkdir data`: 0755.
    mkdirSync(dataDir, { mode: 0o755 });
    first = await start('first');
  }, 60_000);

  afterAll(async () => {
    await first?.kill();
    process.umask(previousUmask);
    rmSync(root, { recursive: true, force: true });
  });

  it('a second gateway on the same directory is refused at start, naming the directory and the pid holding it', async () => {
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim()).toBe(String(first!.pid));
    const refusal = await start('second').then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refusal).toContain(`the data directory ${dataDir} is in use by another gateway (pid ${first!.pid}`);
    // The first one is untouched: it still answers, and still holds the lock.
    expect((await post(first!, '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim()).toBe(String(first!.pid));
  }, 60_000);

  it('the keys commands work beside the running gateway, and it accepts the key they make', async () => {
    const created = await cli(dataDir, 'keys', 'create', 'made-by-cli');
    expect(created.code, created.stderr).toBe(0);
    const secret = /sk-[A-Za-z0-9_-]+/.exec(created.stdout)?.[0];
    expect(secret).toBeDefined();
    expect((await post(first!, '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, secret)).status).toBe(200);
    const listed = await cli(dataDir, 'keys', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('made-by-cli');
  }, 60_000);

  it('under umask 022, the directory, the store (with -wal and -shm), the secret key, the journal and stored media are 0700 and 0600', async () => {
    const image = await post(first!, '/v1/images/generations', IMAGE);
    expect(image.status, await image.clone().text()).toBe(200);
    const modes = modesUnder(dataDir);
    const names = [...modes.keys()].map((path) => path.slice(dataDir.length + 1));
    // The files the issue names are all there to be checked.
    for (const expected of ['gateway.sqlite', 'gateway.sqlite-wal', 'gateway.sqlite-shm', 'secret.key', 'usage-journal', 'media/images']) {
      expect(names).toContain(expected);
    }
    expect(names.some((name) => name.startsWith('media/images/'))).toBe(true);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const [path, mode] of modes) {
      expect({ path, mode: mode.toString(8) }).toEqual({ path, mode: statSync(path).isDirectory() ? '700' : '600' });
    }
  }, 60_000);

  it('a gateway killed with SIGKILL leaves its lock behind; the next start takes it over and removes it at exit', async () => {
    const killedPid = first!.pid;
    await first!.kill();
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim()).toBe(String(killedPid));
    first = await start('after-crash');
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim()).toBe(String(first.pid));
    // A request answered first: a SIGTERM in the first moments after the listening line can still
    // end the process by the signal's default action, without the exit hooks (seen on main too).
    expect((await post(first, '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    await first.stop();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    first = undefined;
  }, 60_000);
});
