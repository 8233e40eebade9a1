// Issue 36 experiment: what one more gateway costs as a worker thread in the same process
// (the worker_threads design) against the USS of a cluster worker process. Each instance its own
// data dir (memory only), the built-in simulators off the path (no requests: idle figures).
//   MALLOC_ARENA_MAX=2 THREADS=2 node --max-semi-space-size=12 --heap-growing-percent=30 bench/memory/gateway-threads.js [built tree]
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
const root = workerData?.root ?? (await import('node:path')).resolve(process.argv[2] ?? '.');
async function start() {
  const { loadConfig } = await import(`${root}/dist/config/load.js`);
  const { startGateway } = await import(`${root}/dist/main.js`);
  const dataDir = mkdtempSync(join(tmpdir(), 'thread36-'));
  const config = loadConfig({ ...process.env, GATEWAY_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', GATEWAY_CONFIG: '', LOG_LEVEL: 'warn', GATEWAY_BOOTSTRAP_KEY: 'sk-gw-thread-36-key' });
  return startGateway(config, { announce: () => undefined });
}
const kib = (f) => Number(new RegExp(`^${f}:\\s+(\\d+)`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const uss = () => { const r = readFileSync('/proc/self/smaps_rollup', 'utf8'); const g = (f) => Number(new RegExp(`^${f}:\\s+(\\d+)`, 'm').exec(r)[1]) / 1024; return g('Private_Clean') + g('Private_Dirty'); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
if (isMainThread) {
  const n = Number(process.env.THREADS ?? 2);
  const gw = await start();
  await sleep(8000);
  const figures = [[0, kib('RssAnon'), uss()]];
  for (let i = 1; i <= n; i++) {
    const w = new Worker(new URL(import.meta.url), { workerData: { root } });
    await new Promise((r) => w.once('message', r));
    await sleep(8000);
    figures.push([i, kib('RssAnon'), uss()]);
  }
  for (const [i, anon, u] of figures) console.log(`main + ${i} gateway thread(s): RssAnon ${anon.toFixed(1)} MiB, USS ${u.toFixed(1)} MiB`);
  process.exit(0);
} else {
  await start();
  parentPort.postMessage('up');
}
