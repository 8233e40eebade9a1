import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** What the command-line tests share (cli.test.ts, cli-stop.test.ts): the built CLI run as a process. */
/** The `gateway` command as installed (dist/cli.js, built by `npm install` / `npm test`). */
export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
/** Data directories made by a file's tests, removed after each (call at the file's top level). */
export function useFreshDirs(): { freshDir: () => string } {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    freshDir: () => {
      const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
      dirs.push(dir);
      return dir;
    },
  };
}

export const baseEnv = (dataDir: string) => {
  const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
  delete env.GATEWAY_BOOTSTRAP_KEY;
  delete env.GATEWAY_ADMIN_TOKEN;
  delete env.GATEWAY_CONFIG;
  return env;
};

/** Starts `gateway start`, waits for its listening line, returns what it printed and a stop function. */
/** `detached`: the gateway leads a process group of its own, so a test can signal the group as a terminal's Ctrl-C does. */
export async function startCli(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}, detached = false): Promise<{ output: string; url: string; stop: () => Promise<void>; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'start'], { env: { ...baseEnv(dataDir), ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { output, url, stop, child };
}
