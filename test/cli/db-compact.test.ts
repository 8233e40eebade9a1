import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { connectSqlite, SQLITE_FILE } from '../../src/db/connect.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');

describe('gateway db compact (issue 22)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-compact-'));
  const file = join(dataDir, SQLITE_FILE);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = (env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [CLI, 'db', 'compact'], { env: { ...process.env, GATEWAY_DATA_DIR: dataDir, ...env }, encoding: 'utf8' });

  it('turns a file made before incremental auto-vacuum into one that gives freed space back, and shrinks it', async () => {
    // A store as an older gateway made it: tables first, so no auto-vacuum; then rows deleted.
    const old = new SqliteDatabase(file);
    old.exec('create table filler (x text); with recursive n(i) as (select 1 union all select i + 1 from n where i < 4000) insert into filler select hex(randomblob(500)) from n');
    old.close();
    const db = await connectSqlite(dataDir);
    await db.destroy();
    const sqlite = new SqliteDatabase(file);
    expect(sqlite.pragma('auto_vacuum', { simple: true })).toBe(0);
    sqlite.exec('delete from filler');
    sqlite.close();
    const before = statSync(file).size;

    const compacted = run();
    expect(compacted.status, compacted.stderr).toBe(0);
    expect(compacted.stdout).toMatch(/MB → .* MB/);
    const after = new SqliteDatabase(file);
    expect(after.pragma('auto_vacuum', { simple: true })).toBe(2);
    after.close();
    expect(statSync(file).size).toBeLessThan(before / 2);
  });

  it('refuses PostgreSQL and a directory without a store', () => {
    expect(run({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }).status).toBe(2);
    const missing = run({ GATEWAY_DATA_DIR: join(dataDir, 'nothing-here') });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no gateway database');
  });
});
