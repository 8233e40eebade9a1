import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { FileConfig } from '../../src/config/schema.js';
import { TEST_ADMIN_TOKEN, TEST_KEY } from './gateway.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * vite-node runs the TypeScript sources as they are (no build), like vitest does. A devDependency
 * of its own: vitest 4 and later no longer bring it.
 */
const VITE_NODE = join(ROOT, 'node_modules', '.bin', 'vite-node');

export interface GatewayProcess {
  url: string;
  pid: number;
  readonly alive: boolean;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** Everything it wrote to stdout so far (its pino lines, at `logLevel`). */
  readonly stdout: string;
  /** SIGKILL: no shutdown hooks, no lease given back, as a crashed machine. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful path (`gateway start` closes the app and its pollers). */
  stop(): Promise<void>;
}

/**
 * `gateway start` as a process of its own (a separate instance that can really be killed),
 * configured through the environment and a GATEWAY_CONFIG file like a deployment would be.
 */
export async function startGatewayProcess(options: {
  name: string;
  dataDir: string;
  databaseUrl: string;
  redisUrl?: string;
  file: FileConfig;
  /** Run the build (`dist/cli.js`, as `npm start` does; `npm test` builds first) rather than the sources. */
  built?: boolean;
  /** LOG_LEVEL (default `silent`); `info` writes one access line per request to `stdout`. */
  logLevel?: string;
  /** More environment (GATEWAY_* settings). */
  env?: Record<string, string>;
  /** Another tree to run (a copy with a vendor added): its `src/cli.ts` under vite-node; the repository's by default. */
  root?: string;
  /** How long it may take to listen (default 25 s); a copied tree compiles every file first. */
  startTimeoutMs?: number;
}): Promise<GatewayProcess> {
  const root = options.root ?? ROOT;
  const configFile = join(options.dataDir, `${options.name}.gateway.yaml`);
  writeFileSync(configFile, stringify(options.file));
  const [command, args] = options.built ? [process.execPath, [join(root, 'dist', 'cli.js'), 'start']] : [VITE_NODE, [join(root, 'src', 'cli.ts'), 'start']];
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    // Its own process group, so a kill reaches vite-node and anything it started.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: options.dataDir,
      GATEWAY_CONFIG: configFile,
      GATEWAY_BOOTSTRAP_KEY: TEST_KEY,
      GATEWAY_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl ?? '',
      LOG_LEVEL: options.logLevel ?? 'silent',
      ...options.env,
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name} did not start in time: ${stderr}`)), options.startTimeoutMs ?? 25_000);
    child.stdout!.on('data', () => {
      const match = /gateway listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited before listening: ${stderr}`));
    });
  });
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, name);
    await exited;
  };
  return {
    url,
    pid: child.pid!,
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    exited,
    get stdout() {
      return stdout;
    },
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
  };
}
