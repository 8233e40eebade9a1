import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { connectDatabase } from '../../src/db/connect.js';
import { KeyStore } from '../../src/keys/key-store.js';
import { verifyAdminToken } from '../../src/keys/bootstrap.js';
import { prepareStore } from '../../src/main.js';
import { baseEnv, CLI, startCli, useFreshDirs } from './cli-process.js';

const { freshDir } = useFreshDirs();

describe('gateway command line (issue 2)', () => {
  it('first start on an empty database prints a working API key and an admin token, once', async () => {
    const dataDir = freshDir();
    const first = await startCli(dataDir);
    try {
      const key = /API key \(shown once[^)]*\): (\S+)/.exec(first.output)?.[1];
      expect(key).toMatch(/^sk-gw-/);
      expect(first.output).toMatch(/Admin token \(shown once[^)]*\): gwadm-/);
      const models = await fetch(`${first.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(models.status).toBe(200);
    } finally {
      await first.stop();
    }
    const second = await startCli(dataDir);
    await second.stop();
    expect(second.output).not.toMatch(/shown once/);
  });

  it('keys create, list and revoke share the gateway store and never list secrets', async () => {
    const dataDir = freshDir();
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'keys', ...args], { env: baseEnv(dataDir), encoding: 'utf8' });
    // Never a new store by accident: an empty data directory is refused (issue 15).
    const empty = run('list');
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain(`no gateway database at ${join(dataDir, 'gateway.sqlite')}`);
    expect(existsSync(join(dataDir, 'gateway.sqlite'))).toBe(false);
    await prepareStore(loadConfig(baseEnv(dataDir)), () => undefined);
    const created = run('create', 'ci-key', '--models', 'delta-4.1');
    expect(created.stderr).toContain(`database: SQLite ${join(dataDir, 'gateway.sqlite')}`);
    expect(created.status).toBe(0);
    const [id, secret] = created.stdout.trim().split('\t');
    expect(id).toMatch(/^key_/);
    expect(secret).toMatch(/^sk-gw-/);
    const listed = run('list');
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('ci-key');
    expect(listed.stdout).not.toContain(secret);
    expect(run('revoke', id!).status).toBe(0);
    expect(run('list').stdout).toMatch(new RegExp(`${id}.*revoked`));
    expect(run('revoke', id!).status).toBe(1);
    expect(run('frobnicate').status).toBe(2);
  });

  it('keys create takes every limit as a flag and refuses unknown flags, models and out-of-range values (issue 15)', async () => {
    const dataDir = freshDir();
    await prepareStore(loadConfig(baseEnv(dataDir)), () => undefined);
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'keys', 'create', ...args], { env: baseEnv(dataDir), encoding: 'utf8' });
    const created = run('limited', '--families', 'chat-completions,messages', '--rpm', '10', '--tpm=1000', '--budget', '2.5', '--expires', '30d', '--max-parallel', '3');
    expect(created.status, created.stderr).toBe(0);
    const [id] = created.stdout.trim().split('\t');
    const db = await connectDatabase({ databaseUrl: undefined, dataDir });
    try {
      const key = (await new KeyStore(db).get(id!))!;
      expect(key).toMatchObject({ name: 'limited', endpoints: ['chat-completions', 'messages'], rpm: 10, tpm: 1000, budgetUsd: 2.5, maxParallel: 3 });
      expect(key.expiresAt! - Date.now()).toBeGreaterThan(29 * 86_400_000);
    } finally {
      await db.destroy();
    }
    for (const [args, message] of [
      [['--rmp', '10'], 'unknown option --rmp'],
      [['--models', 'gpt-4'], "unknown model 'gpt-4'"],
      [['--families', 'chat'], "unknown family 'chat'"],
      [['--rpm', '0'], 'rpm'],
      [['--rpm', 'ten'], '--rpm must be a number'],
      [['--budget'], '--budget needs a value'],
      [['--expires', 'someday'], 'expires_at'],
    ] as const) {
      const refused = run(...args);
      expect(refused.status, `${args.join(' ')}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout).toBe('');
    }
  });

  it('admin rotate-token prints a new token once and retires the old one; refused while GATEWAY_ADMIN_TOKEN is set (issue 15)', async () => {
    const dataDir = freshDir();
    await prepareStore(loadConfig(baseEnv(dataDir)), () => undefined);
    const rotated = spawnSync(process.execPath, [CLI, 'admin', 'rotate-token'], { env: baseEnv(dataDir), encoding: 'utf8' });
    expect(rotated.status, rotated.stderr).toBe(0);
    const token = /Admin token \(shown once[^)]*\): (gwadm-\S+)/.exec(rotated.stdout)![1]!;
    const again = spawnSync(process.execPath, [CLI, 'admin', 'rotate-token'], { env: baseEnv(dataDir), encoding: 'utf8' });
    const newer = /: (gwadm-\S+)/.exec(again.stdout)![1]!;
    const db = await connectDatabase({ databaseUrl: undefined, dataDir });
    try {
      expect(await verifyAdminToken(db, newer)).toBe(true);
      expect(await verifyAdminToken(db, token)).toBe(false);
    } finally {
      await db.destroy();
    }
    const pinned = spawnSync(process.execPath, [CLI, 'admin', 'rotate-token'], { env: { ...baseEnv(dataDir), GATEWAY_ADMIN_TOKEN: 'gwadm-pinned' }, encoding: 'utf8' });
    expect(pinned.status).toBe(2);
    expect(pinned.stderr).toContain('GATEWAY_ADMIN_TOKEN is set');
  });

  it('finds the data directory beside GATEWAY_CONFIG, as the server does (issue 15)', async () => {
    const dir = freshDir();
    const config = join(dir, 'gateway.yaml');
    writeFileSync(config, 'channels: []\n');
    const env: NodeJS.ProcessEnv = { ...baseEnv(dir), GATEWAY_CONFIG: config };
    delete env.GATEWAY_DATA_DIR;
    expect(loadConfig(env).dataDir).toBe(join(dir, 'data'));
    await prepareStore(loadConfig(env), () => undefined);
    const listed = spawnSync(process.execPath, [CLI, 'keys', 'list'], { env, encoding: 'utf8', cwd: tmpdir() });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(join(dir, 'data', 'gateway.sqlite'));
  });

  it('GATEWAY_WORKERS=2 runs two workers on one port whose request limits stay exact together (issue 5)', async () => {
    const dataDir = freshDir();
    const admin = 'gwadm-cli-workers-test';
    const gateway = await startCli(dataDir, { GATEWAY_WORKERS: '2', GATEWAY_ADMIN_TOKEN: admin, GATEWAY_BOOTSTRAP_KEY: 'sk-gw-cli-workers' });
    try {
      expect(gateway.output).toMatch(/with 2 workers/);
      const created = await fetch(`${gateway.url}/admin/api/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'limited', rpm: 5 }),
      });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      // Fresh connections spread over both workers; the primary keeps the one counter.
      const statuses = await Promise.all(
        Array.from({ length: 12 }, () =>
          fetch(`${gateway.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
            body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
          }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    } finally {
      await gateway.stop();
    }
  }, 120_000);

  it.each([
    ['SIGTERM to the primary', false],
    ["SIGINT to every process of the group (a terminal's Ctrl-C)", true],
  ])('GATEWAY_WORKERS=2 on SQLite: the workers\' batches commit on the primary\'s one writer, and a stop (%s) waits for every one (issue 36)', async (_how, wholeGroup) => {
    const dataDir = freshDir();
    const gateway = await startCli(dataDir, { GATEWAY_WORKERS: '2', GATEWAY_BOOTSTRAP_KEY: 'sk-gw-cli-writes' }, wholeGroup);
    // Fresh connections land on both workers; no flush is awaited before the stop.
    const statuses = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: 'Bearer sk-gw-cli-writes', 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: `hi ${i}` }], max_tokens: 5 }),
        }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const exited = new Promise<number | null>((resolve) => gateway.child.once('exit', (code) => resolve(code)));
    if (wholeGroup) process.kill(-gateway.child.pid!, 'SIGINT');
    else await gateway.stop();
    expect(await exited).toBe(0);
    const store = new SqliteDatabase(join(dataDir, 'gateway.sqlite'), { readonly: true });
    try {
      expect(store.prepare('select count(*) as n from usage_events').get()).toEqual({ n: 24 });
      expect(store.prepare('select count(*) as n from request_details').get()).toEqual({ n: 24 });
      // Nothing left for a next start to replay: the journals were written through.
      expect(store.prepare("select sum(events) as n from usage_rollups where period = 'hour' and grain = 'all'").get()).toEqual({ n: 24 });
    } finally {
      store.close();
    }
  }, 120_000);

  it('GATEWAY_WORKERS=2 without Redis: a larger rpm holds within the lease bound, limit − (workers − 1) × ⌊limit / (16 × workers)⌋ (issue 36)', async () => {
    const dataDir = freshDir();
    const admin = 'gwadm-cli-leases-test';
    const gateway = await startCli(dataDir, { GATEWAY_WORKERS: '2', GATEWAY_ADMIN_TOKEN: admin, GATEWAY_BOOTSTRAP_KEY: 'sk-gw-cli-leases' });
    try {
      const rpm = 320;
      const created = await fetch(`${gateway.url}/admin/api/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'leased', rpm }),
      });
      const { key } = (await created.json()) as { key: string };
      // Fresh connections, 16 at a time, land on both workers; each answers from its leases.
      const statuses: number[] = [];
      for (let round = 0; round < 25; round++) {
        statuses.push(...(await Promise.all(Array.from({ length: 16 }, () =>
          fetch(`${gateway.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
            body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
          }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ))));
      }
      const admittedCount = statuses.filter((s) => s === 200).length;
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      expect(admittedCount).toBeLessThanOrEqual(rpm);
      expect(admittedCount).toBeGreaterThanOrEqual(rpm - 1 * Math.floor(rpm / 32));
    } finally {
      await gateway.stop();
    }
  }, 120_000);
});

describe('shipped node flags', () => {
  it('npm start runs node with the same environment and V8 flags as the bin shebang (the benchmark reads them there too)', async () => {
    const { readFileSync } = await import('node:fs');
    const root = join(import.meta.dirname, '..', '..');
    const shebang = readFileSync(join(root, 'src', 'cli.ts'), 'utf8').split('\n')[0]!;
    expect(shebang.startsWith('#!/usr/bin/env -S ')).toBe(true);
    const launch = shebang.slice('#!/usr/bin/env -S '.length);
    expect(launch).toMatch(/^(?:[A-Z_]+=\S+ )*node(?: --[\w-]+=\S+)+$/);
    const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    // `exec`: npm's shell becomes node, so the signals npm forwards reach the server (issue 15).
    expect(start).toBe(`${launch.replace(/(^|\s)node /, '$1exec node ')} dist/cli.js start`);
    // The emitted bin keeps the shebang, so an installed `gateway start` gets them as well.
    expect(readFileSync(CLI, 'utf8').split('\n')[0]).toBe(shebang);
  });

});
