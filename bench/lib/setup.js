// Starting the three servers of a run: the standalone simulator (the upstream), our gateway
// (node dist/cli.js start, configured to use that upstream) and Portkey's gateway.
import { mkdtempSync, writeFileSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pinned, startProcess, withOpenFileLimit } from './procs.js';

export const BOOTSTRAP_KEY = 'sk-bench-bootstrap-0123456789abcdef0123';
export const LIMITED_KEY = 'sk-bench-limited-0123456789abcdef012345';
/** A key with the response cache on (issue 32): the cache-hit scenario's repeated request is answered from the cache. */
export const CACHED_KEY = 'sk-bench-cached-01234567890abcdef0123456';
/** Far above anything a run sends: the limit is checked on every request but never hit. */
const LIMITS = { rpm: 1_000_000_000, tpm: 1_000_000_000_000 };

export async function startUpstream(root, { slow = true } = {}) {
  const args = [join(root, 'dist/cli/simulator-standalone.js'), '--openai-port', '0', '--gemini-port', '0'];
  if (slow) args.push('--slow-port', '0', '--slow-tokens-per-second', '10');
  return startProcess('upstream', process.execPath, args, {
    ready: (line) => (line.startsWith('{') ? JSON.parse(line) : undefined),
  });
}

/** A data directory with the bootstrap key and a restricted, rate-limited key already in it. */
export async function prepareDataDir(root) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const { connectSqlite } = await import(join(root, 'dist/db/connect.js'));
  const { KeyStore } = await import(join(root, 'dist/keys/key-store.js'));
  const db = await connectSqlite(dataDir);
  const keys = new KeyStore(db);
  await keys.create({ name: 'bench-bootstrap', secret: BOOTSTRAP_KEY });
  await keys.create({ name: 'bench-limited', secret: LIMITED_KEY, models: ['delta-4.1', 'epsilon-4.7'], endpoints: ['chat-completions'], ...LIMITS });
  await keys.create({ name: 'bench-cached', secret: CACHED_KEY, cacheEnabled: true, cacheTtlS: 86_400 });
  await db.destroy();
  return dataDir;
}

function gatewayConfig(upstream) {
  const channel = (name, vendor, baseUrl, models) =>
    `  - name: ${name}\n    vendor: ${vendor}\n    base_url: ${baseUrl}\n    api_key: simulator-key\n    max_retries: 0\n    models:\n` +
    Object.entries(models).map(([k, v]) => `      ${k}: ${v}\n`).join('');
  let yaml = 'channels:\n';
  yaml += channel('bench-openai', 'openai', `${upstream.openai}/v1`, { 'delta-4.1': 'gpt-4.1', 'text-embedding-3-small': 'text-embedding-3-small' });
  yaml += channel('bench-gemini', 'gemini', upstream.gemini, { 'gamma-2.5-flash-lite': 'gemini-2.5-flash-lite', 'gamma-3.1-flash-image': 'gemini-3.1-flash-image' });
  if (upstream.slow) yaml += channel('bench-slow', 'openai', `${upstream.slow}/v1`, { 'epsilon-4.7': 'gpt-4.1' });
  return yaml;
}

/**
 * How the gateway ships to be started: the node flags and environment of its bin's shebang
 * (`#!/usr/bin/env -S VAR=value node --flag…`; npm start uses the same).
 */
export function shippedLaunch(root) {
  const words = readFileSync(join(root, 'src/cli.ts'), 'utf8').split('\n')[0].split(/\s+/);
  return {
    flags: words.filter((word) => word.startsWith('--')),
    env: Object.fromEntries(words.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('='))),
  };
}

/** The environment `startOurs` gives the gateway (its config file written into the data directory). */
export function oursEnv(upstream, dataDir, port) {
  const configPath = join(dataDir, 'bench-gateway.yaml');
  writeFileSync(configPath, gatewayConfig(upstream));
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_CONFIG: configPath,
    GATEWAY_BOOTSTRAP_KEY: BOOTSTRAP_KEY,
    GATEWAY_ADMIN_TOKEN: 'gwadm-bench-admin-token',
    LOG_LEVEL: 'warn',
  };
}

/**
 * Starts the gateway as `npm start` does (node, the shipped flags, dist/cli.js start) against
 * the upstream. `nodeArgs` adds flags such as --cpu-prof; `workers` sets GATEWAY_WORKERS
 * (node:cluster) for the multi-process mode; `nodeFlags` replaces the shipped flags (to
 * compare V8 heap settings); `openFiles` raises its open-file limit (long streams); `cpus` pins it (taskset).
 */
export async function startOurs(root, upstream, dataDir, { nodeArgs = [], workers, nodeFlags, openFiles, cpus } = {}) {
  const port = await freePort();
  const launch = shippedLaunch(root);
  nodeFlags ??= launch.flags;
  const env = { ...launch.env, ...oursEnv(upstream, dataDir, port), ...(workers ? { GATEWAY_WORKERS: String(workers) } : {}) };
  const node = [process.execPath, [...nodeFlags, ...nodeArgs, join(root, 'dist/cli.js'), 'start']];
  // Pinned to CPUs where asked (many-core runs).
  const [command, args] = pinned(cpus, ...(openFiles ? withOpenFileLimit(openFiles, ...node) : node));
  const child = await startProcess('gateway', command, args, {
    env,
    readyUrl: `http://127.0.0.1:${port}/healthz`,
    // N workers each load the whole app: on a loaded machine that takes longer than one process.
    timeoutMs: workers ? 120_000 : 20_000,
  });
  return { ...child, url: `http://127.0.0.1:${port}` };
}

export async function startPortkey(root) {
  const entry = join(root, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(entry)) return undefined;
  const port = await freePort();
  // --headless: no log-viewer UI; NODE_ENV=production keeps its console quiet.
  const child = await startProcess('portkey', process.execPath, [entry, `--port=${port}`, '--headless'], {
    env: { NODE_ENV: 'production' },
    readyUrl: `http://127.0.0.1:${port}/`,
  });
  return { ...child, url: `http://127.0.0.1:${port}` };
}

export function removeDataDir(dataDir) {
  rmSync(dataDir, { recursive: true, force: true });
}
