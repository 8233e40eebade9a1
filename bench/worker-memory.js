// Per-worker memory (issue 36): `gateway start` from a built tree with GATEWAY_WORKERS=1 and 2 on
// the embedded defaults (built-in simulators), RSS of every process read from /proc: settled idle,
// then after some requests (chat, streams, a limited key) and a settle again. Quiet and short: run
// it on a machine at rest; compare figures within one run.
//   node bench/worker-memory.js [tree ...]     (default: this tree; each tree must have dist/)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { shippedLaunch } from './lib/setup.js';
import { freePort, processTree, startProcess } from './lib/procs.js';

const MB = 1024 * 1024;
const KEY = 'sk-gw-bench-memory-key';
const ADMIN = 'gwadm-bench-memory-admin';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const settleS = Number(process.env.SETTLE_S ?? 20);
const requests = Number(process.env.REQUESTS ?? 300);

/** One process's own VmRSS (procs.js's currentRss sums the whole tree). */
const ownRss = (pid) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

function rssOfTree(pid) {
  const pids = processTree(pid);
  const each = pids.map((p) => Math.round((ownRss(p) / MB) * 10) / 10);
  return { totalMb: Math.round(each.reduce((a, b) => a + b, 0) * 10) / 10, eachMb: each };
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
  const gateway = await startProcess(`gateway (${workers} workers)`, process.execPath, [...launch.flags, join(root, 'dist/cli.js'), 'start'], {
    env: { ...launch.env, PORT: String(port), HOST: '127.0.0.1', GATEWAY_DATA_DIR: dataDir, GATEWAY_CONFIG: '', DATABASE_URL: '', REDIS_URL: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', LOG_LEVEL: 'warn', GATEWAY_WORKERS: String(workers), GATEWAY_BOOTSTRAP_KEY: KEY, GATEWAY_ADMIN_TOKEN: ADMIN },
    ready: (line) => /listening on/.test(line),
    timeoutMs: 120_000,
  });
  try {
    await sleep(settleS * 1000);
    const idle = rssOfTree(gateway.pid);
    const created = await fetch(`${url}/admin/api/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limited', rpm: 100000, tpm: 100000000 }) });
    const { key: limited } = await created.json();
    const failed = (await traffic(url, KEY)) + (await traffic(url, limited));
    await sleep(settleS * 1000);
    const after = rssOfTree(gateway.pid);
    return { workers, idle, after, failed };
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const trees = process.argv.slice(2).length > 0 ? process.argv.slice(2).map((t) => resolve(t)) : [resolve(import.meta.dirname, '..')];
const results = [];
for (const root of trees) {
  for (const workers of [1, 2]) {
    const m = await measure(root, workers);
    results.push({ root, ...m });
    process.stdout.write(`${root} workers=${workers}: idle ${m.idle.totalMb} MiB [${m.idle.eachMb.join(', ')}], after ${2 * requests} requests ${m.after.totalMb} MiB [${m.after.eachMb.join(', ')}], failed ${m.failed}\n`);
  }
}
process.stdout.write(JSON.stringify(results) + '\n');
