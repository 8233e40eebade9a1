import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Running a coding agent's CLI as a user would, but sealed: a scratch HOME and XDG directories (no
 * setting, login or session of the machine leaks in), an environment built from nothing but what
 * the client needs, stdin closed (a CLI that waits for a TTY or a login fails instead of hanging),
 * its own process group killed on timeout and after exit (no helper process outlives a test).
 */

const AGENTS_DIR = dirname(fileURLToPath(import.meta.url));
/** The clients' executables, from this package's own install (test/agents/node_modules). */
export const bin = (name: string): string => join(AGENTS_DIR, 'node_modules', '.bin', name);

/** What a tool-loop prompt reads: its content shows up in the answer when the tool really ran. */
export const NOTES = 'The secret word is pineapple.\n';

export interface Sandbox {
  home: string;
  /** The client's working directory, with notes.txt in it. */
  work: string;
  /** HOME, XDG_* and a PATH with the Node that runs the tests (the Node-based CLIs need 22+). */
  env: Record<string, string>;
  remove(): void;
}

export function makeSandbox(name: string): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `agents-${name}-`));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'notes.txt'), NOTES);
  return {
    home,
    work,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      TMPDIR: join(root, 'tmp'),
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Claude Code's environment against the gateway (its gateway guide): the origin, the key sent as a
 * Bearer token, `model` for every model slot, and nothing but the gateway (no telemetry, error
 * reports, update checks or surveys); a refused request fails the run at once, not after backoff.
 */
export function claudeEnv(sandbox: Sandbox, gateway: { url: string; key: string }, model: string): Record<string, string> {
  return {
    ...sandbox.env,
    ANTHROPIC_BASE_URL: gateway.url,
    ANTHROPIC_AUTH_TOKEN: gateway.key,
    ANTHROPIC_MODEL: model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    ANTHROPIC_SMALL_FAST_MODEL: model,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_UPDATES: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
    CLAUDE_CODE_MAX_RETRIES: '1',
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** For assertion messages: the command and the tail of what it printed. */
  describe(): string;
}

/** Runs `command args` in `cwd` with exactly `env`; kills its whole process group after `timeoutMs`. */
export function runCli(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<CliResult> {
  mkdirSync(options.env.TMPDIR ?? tmpdir(), { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs ?? 150_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      killGroup();
      const shown = `${command.split('/').pop()} ${args.map((arg) => (arg.length > 60 ? `${arg.slice(0, 60)}…` : arg)).join(' ')}`;
      resolve({
        code,
        stdout,
        stderr,
        timedOut,
        describe: () => `${shown}${timedOut ? ' (timed out)' : ''} exited ${code}\n--- stdout (tail)\n${stdout.slice(-1500)}\n--- stderr (tail)\n${stderr.slice(-1500)}`,
      });
    });
  });
}

/** Parses JSON-lines output (stream-json, --json, --format json), skipping any line that is not JSON. */
export function jsonLines(text: string): any[] {
  return text.split('\n').flatMap((line) => {
    try {
      return line.trim().startsWith('{') ? [JSON.parse(line)] : [];
    } catch {
      return [];
    }
  });
}
