import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL server of a test's own (initdb into a temporary folder, on a free port), so the
 * test can stop and start it without touching the machine's shared one. Debian's binaries; as
 * root they run as the `postgres` user, which PostgreSQL requires.
 */
export interface PostgresServer {
  url: string;
  /** Stops the server (fast shutdown: open connections are cut) and starts it again after `downMs`. */
  restart(downMs: number): Promise<void>;
  destroy(): Promise<void>;
}

function binDir(): string {
  for (const dir of ['/usr/lib/postgresql']) {
    if (!existsSync(dir)) continue;
    const versions = readdirSync(dir).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) if (existsSync(join(dir, version, 'bin', 'initdb'))) return join(dir, version, 'bin');
  }
  throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
}

export async function startPostgres(port: number): Promise<PostgresServer> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  const asRoot = userInfo().uid === 0;
  const run = (tool: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' }) : execFileSync(join(bin, tool), args, { stdio: 'pipe' });
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'root', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  execFileSync(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'root', 'gateway']);
  return {
    url: `postgres://root@127.0.0.1:${port}/gateway`,
    async restart(downMs) {
      stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      start();
    },
    async destroy() {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
