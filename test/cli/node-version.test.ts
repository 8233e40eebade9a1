import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** The `gateway` command as installed (dist/cli.js, built by `npm install` / `npm test`). */
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const NEEDED = Number(/\d+/.exec((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node)![0]);

/**
 * The machine's own Nodes older than the project needs: on the PATH outside any node_modules
 * (npm scripts put the project's Node 22 first) and in the usual places. Debian's is Node 20.
 */
function olderNodes(): { path: string; version: string }[] {
  const candidates = new Set(['/usr/bin/node', '/usr/local/bin/node']);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && !dir.includes('node_modules')) candidates.add(join(dir, 'node'));
  const found = new Map<string, { path: string; version: string }>();
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    const probe = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
    const version = probe.stdout?.trim();
    if (probe.status === 0 && version && Number(version.split('.')[0]) < NEEDED) found.set(version, { path, version });
  }
  return [...found.values()];
}

const OLDER = olderNodes();
const dataDir = mkdtempSync(join(tmpdir(), 'gateway-node-version-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the entry point on an older Node (issue 24)', () => {
  it.skipIf(OLDER.length === 0)(`stops with a message naming Node ${NEEDED} before any native module loads (the machine's Node ${OLDER.map((n) => n.version).join(', ') || 'is new enough'})`, () => {
    for (const { path, version } of OLDER) {
      for (const args of [['start'], ['keys', 'list']]) {
        const run = spawnSync(path, [CLI, ...args], {
          encoding: 'utf8',
          timeout: 20_000,
          env: { ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' },
        });
        // Before the check, this was a segmentation fault in the SQLite binding (signal SIGSEGV).
        expect(run.signal, run.stderr).toBeNull();
        expect(run.status, run.stderr).toBe(1);
        expect(run.stderr).toContain(`Node.js ${NEEDED} or newer is needed`);
        expect(run.stderr).toContain(`this is Node.js ${version}`);
        expect(run.stderr).toContain('npm start');
        expect(run.stdout).toBe('');
      }
    }
    // Nothing ran: no database was opened, no first-start secrets were made.
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
