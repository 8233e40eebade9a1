// Per-worker memory (issue 36): `gateway start` from a built tree with GATEWAY_WORKERS=1 and 2 on
// the embedded defaults (built-in simulators), the memory of every process read from /proc: settled
// idle, then after some requests (chat, streams, a limited key) and a settle again. Quiet and short:
// run it on a machine at rest; compare figures within one run.
//   node bench/worker-memory.js [tree ...]     (default: this tree; each tree must have dist/)
// RSS counts the node binary's and the libraries' file pages in every process that maps them;
// PSS (/proc/<pid>/smaps_rollup) shares them out among those processes, so the PSS of a tree sums
// to what it really holds (but with every other process on the machine that maps the same files:
// other node processes lower it). USS (private pages) is what goes away when the process exits;
// RssAnon (heaps, stacks, malloc) is most of it.
// WORKER_FLAGS="--flag …" adds Node flags to every process started (the experiments of issue 36).
// UPSTREAM=standalone: the channels point at the standalone simulator (a process of its own, as
// real vendors would be) instead of the built-in simulators, which run in every worker and load
// the tokenizer's tables (tens of MiB) a gateway with real upstreams never loads.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { oursEnv, shippedLaunch, startUpstream } from './lib/setup.js';
import { freePort, processTree, startProcess } from './lib/procs.js';

const MB = 1024 * 1024;
const KEY = 'sk-gw-bench-memory-key';
const ADMIN = 'gwadm-bench-memory-admin';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const settleS = Number(process.env.SETTLE_S ?? 20);
const requests = Number(process.env.REQUESTS ?? 300);

const extraFlags = (process.env.WORKER_FLAGS ?? '').split(/\s+/).filter(Boolean);
const KINDS = ['rss', 'pss', 'uss', 'anon', 'file'];

const kib = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
const mib = (k) => Math.round((k / 1024) * 10) / 10;

/** One process's own figures (procs.js's currentRss sums the whole tree), in MiB. */
function ownMemory(pid) {
  let status, rollup;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
    rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    return undefined; // gone between the listing and the read (a short-lived helper)
  }
  return { rss: mib(kib(status, 'VmRSS')), pss: mib(kib(rollup, 'Pss')), uss: mib(kib(rollup, 'Private_Clean') + kib(rollup, 'Private_Dirty')), anon: mib(kib(status, 'RssAnon')), file: mib(kib(status, 'RssFile')) };
}

/** Every kind's total over the tree and per process (the primary first). */
function memoryOfTree(pid) {
  const each = processTree(pid).map(ownMemory).filter(Boolean);
  return Object.fromEntries(KINDS.map((kind) => [kind, { totalMb: mib(each.reduce((sum, m) => sum + m[kind] * 1024, 0)), eachMb: each.map((m) => m[kind]) }]));
}

async function traffic(url, key) {
  const body = (stream) => JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 16, stream });
  const one = async (i) => {
    const r = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: i % 4 === 0 ? 'close' : 'keep-alive' },
      body: body(i % 3 === 0),
    });
    await r.arrayBuffer();
    return r.status;
  };
  const statuses = [];
  for (let at = 0; at < requests; at += 16) statuses.push(...(await Promise.all(Array.from({ length: Math.min(16, requests - at) }, (_, i) => one(at + i)))));
  return statuses.filter((s) => s !== 200).length;
}

async function measure(root, workers) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-workers-'));
  const port = await freePort();
  const launch = shippedLaunch(root);
  const url = `http://127.0.0.1:${port}`;
  const upstream = process.env.UPSTREAM === 'standalone' ? await startUpstream(root, { slow: false }) : undefined;
  const channels = upstream ? { ...oursEnv(upstream.value, dataDir, port), LOG_LEVEL: 'warn' } : { GATEWAY_CONFIG: '' };
  const gateway = await startProcess(`gateway (${workers} workers)`, process.execPath, [...launch.flags, ...extraFlags, join(root, 'dist/cli.js'), 'start'], {
    env: { ...launch.env, PORT: String(port), HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', LOG_LEVEL: 'warn', ...channels, GATEWAY_WORKERS: String(workers), GATEWAY_BOOTSTRAP_KEY: KEY, GATEWAY_ADMIN_TOKEN: ADMIN },
    ready: (line) => /listening on/.test(line),
    timeoutMs: 120_000,
  }).catch(async (error) => {
    await upstream?.stop();
    throw error;
  });
  try {
    await sleep(settleS * 1000);
    const idle = memoryOfTree(gateway.pid);
    const created = await fetch(`${url}/admin/api/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limited', rpm: 100000, tpm: 100000000 }) });
    const { key: limited } = await created.json();
    const failed = (await traffic(url, KEY)) + (await traffic(url, limited));
    await sleep(settleS * 1000);
    const after = memoryOfTree(gateway.pid);
    return { workers, idle, after, failed };
  } finally {
    await gateway.stop();
    await upstream?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const line = (m) => KINDS.map((kind) => `${kind} ${m[kind].totalMb} [${m[kind].eachMb.join(', ')}]`).join('; ');
const trees = process.argv.slice(2).length > 0 ? process.argv.slice(2).map((t) => resolve(t)) : [resolve(import.meta.dirname, '..')];
const results = [];
for (const root of trees) {
  for (const workers of [1, 2]) {
    const m = await measure(root, workers);
    results.push({ root, ...m });
    process.stdout.write(`${root} workers=${workers} (MiB): idle ${line(m.idle)}\n  after ${2 * requests} requests ${line(m.after)}; failed ${m.failed}\n`);
  }
  // What an extra worker costs: a worker process's own figures (the primary is there once, whatever N).
  const two = results.find((r) => r.root === root && r.workers === 2);
  const perWorker = (m) => KINDS.map((kind) => `${kind} ${mib((m[kind].eachMb.slice(1).reduce((a, b) => a + b, 0) / (m[kind].eachMb.length - 1)) * 1024)}`).join(', ');
  for (const when of ['idle', 'after']) process.stdout.write(`${root} per worker of 2, ${when} (MiB): ${perWorker(two[when])}\n`);
}
process.stdout.write(JSON.stringify(results) + '\n');
