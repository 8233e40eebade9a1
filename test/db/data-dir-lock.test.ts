import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../src/db/data-dir-lock.js';

/** A pid that surely belonged to a process and is surely dead now: a child that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

/** The lock's rules one by one (issue 34); test/cli/data-dir.test.ts runs them with real gateways. */
describe('the data directory lock (issue 34)', () => {
  let dir: string;
  const lockPath = () => join(dir, LOCK_FILE);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is created 0600 with the pid, and released only by its holder', () => {
    const lock = lockDataDir(dir, 4242);
    expect(readFileSync(lockPath(), 'utf8')).toBe('4242\n');
    expect(statSync(lockPath()).mode & 0o777).toBe(0o600);
    // Nothing else is left in the directory (the file is written aside, then linked in).
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    writeFileSync(lockPath(), `${process.ppid}\n`);
    lock.release();
    expect(existsSync(lockPath())).toBe(true);
  });

  it('refuses while a live process holds it, naming the directory and the pid', () => {
    // The test runner's parent process: alive for as long as this test runs.
    writeFileSync(lockPath(), `${process.ppid}\n`);
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dir)).toThrow(`the data directory ${dir} is in use by another gateway (pid ${process.ppid}`);
    expect(readFileSync(lockPath(), 'utf8')).toBe(`${process.ppid}\n`);
  });

  it.each([
    ['a dead pid (a killed gateway)', () => `${deadPid()}\n`],
    ['this very pid (a container restarted as pid 1 on the same volume)', () => `${process.pid}\n`],
    ['no pid at all', () => 'not a pid\n'],
  ])('takes over a stale lock holding %s, and releases it', (_, content) => {
    writeFileSync(lockPath(), content());
    const lock = lockDataDir(dir);
    expect(readFileSync(lockPath(), 'utf8')).toBe(`${process.pid}\n`);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    lock.release();
    expect(existsSync(lockPath())).toBe(false);
  });
});
