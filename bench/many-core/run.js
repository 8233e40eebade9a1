// The workers table of issue 36 on a many-core machine: a 4-process fake upstream, wrk and the
// gateway each pinned (taskset) to their own CPUs; the direct ceiling, then GATEWAY_WORKERS =
// 1, 2, 4, 8 with non-stream chat and 20-event streams, on the bootstrap key and on a key with
// rpm/tpm limits (the IPC limiter without Redis). Per run: req/s, p50/p99, RSS of all gateway
// processes, gateway CPU per request, and what each process (primary, workers) and its busiest
// threads did, to see what caps many workers. Writes results.md and results.json to OUT_DIR.
//
//   OUT_DIR=/tmp/out WRK=/path/to/wrk node bench/many-core/run.js
//   (WORKERS=1,2 CONNECTIONS=16 DURATION_S=2 LONG_STREAMS=200 STREAM_S=4 for a small machine)
// Then issue 36's long-stream table (LONG_STREAMS=1000,5000,10000 by default, 0 for none): one
// gateway process, a multi-process fake upstream and CLIENT_PROCESSES load clients, pinned apart.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus as listCpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess } from '../lib/procs.js';
import { BOOTSTRAP_KEY, LIMITED_KEY, oursEnv, prepareDataDir, removeDataDir, shippedLaunch } from '../lib/setup.js';
import { cpuLayout, diffTree, processTree, sampleTree } from './procstat.js';
import { sampleSyscalls } from './syscalls.js';
import { renderMarkdown } from './report.js';
import { readTcpCounters, tcpCountersMoved } from './netstat.js';
import { readRequestTiming } from '../lib/request-timing-read.js';
import { runLongStreams } from '../lib/long-streams.js';
import { checkLongStreamTargets, longStreamsMarkdown } from '../lib/long-streams-report.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(process.env.GATEWAY_ROOT ?? join(here, '../..'));
const env = process.env;
const settings = {
  workers: (env.WORKERS ?? '1,2,4,8').split(',').map(Number),
  limitedWorkers: (env.LIMITED_WORKERS ?? env.WORKERS ?? '1,2,4,8').split(',').map(Number),
  connections: Number(env.CONNECTIONS ?? 256),
  durationS: Number(env.DURATION_S ?? 8),
  warmupS: Number(env.WARMUP_S ?? 2),
  wrk: env.WRK ?? 'wrk',
  wrkThreads: Number(env.WRK_THREADS ?? 4),
  upstreamProcesses: Number(env.UPSTREAM_PROCESSES ?? 4),
  // The gateway's own share of each request (bench/lib/request-timing.mjs); TIMING=0 leaves it out.
  timing: env.TIMING !== '0',
  // Issue 36's long-stream table through one gateway process, after the workers (LONG_STREAMS=0: none).
  longStreams: env.LONG_STREAMS === '0' ? [] : (env.LONG_STREAMS ?? '1000,5000,10000').split(',').map(Number),
  streamS: Number(env.STREAM_S ?? 20),
  plateauS: Number(env.PLATEAU_S ?? 5),
  clientProcesses: Number(env.CLIENT_PROCESSES ?? 4),
};
const outDir = env.OUT_DIR ?? join(root, 'bench-many-core-out');
mkdirSync(outDir, { recursive: true });

// Every online CPU, not availableParallelism(): run.sh pins this runner beside wrk, and the layout is the machine's.
const cpus = listCpus().length;
const layout = cpus >= 16 ? cpuLayout([4, 4, 8]) : { groups: Array(3).fill(`0-${cpus - 1}`), threadsPerCore: undefined };
const [upstreamCpus, wrkCpus, gatewayCpus] = layout.groups;
const log = (line) => process.stderr.write(`${line}\n`);

const SHORT_PROMPT = 'Say hello in one short sentence.';
const LONG_PROMPT = 'Write a short paragraph about gateways, routing, streaming, latency, throughput and the careful measurement of all of them under load.';
const chatBody = (model) => JSON.stringify({ model, messages: [{ role: 'user', content: SHORT_PROMPT }] });
// The simulator sends a role chunk, max_tokens content chunks, a finish chunk, usage and [DONE]: 16 gives 20 events.
const streamBody = (model) => JSON.stringify({ model, stream: true, stream_options: { include_usage: true }, max_tokens: 16, messages: [{ role: 'user', content: LONG_PROMPT }] });
const request = (base, key, body) => ({ url: `${base}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });

/** One wrk run pinned to wrk's CPUs; resolves with wrk.lua's summary line. */
function runWrk(target, durationS) {
  const dir = join(outDir, '.wrk');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'body'), target.body);
  writeFileSync(join(dir, 'headers'), Object.entries(target.headers).map(([k, v]) => `${k}: ${v}\n`).join(''));
  const args = ['-c', wrkCpus, settings.wrk, '-t', String(settings.wrkThreads), '-c', String(settings.connections), '-d', `${durationS}s`, '--timeout', '30s', '-s', join(root, 'bench/lib/wrk.lua'), target.url];
  const childEnv = { ...env, WRK_METHOD: 'POST', WRK_BODY_FILE: join(dir, 'body'), WRK_HEADERS_FILE: join(dir, 'headers') };
  return new Promise((resolvePromise, reject) => {
    const child = spawn('taskset', args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.match(/^WRK_JSON (.*)$/m);
      if (code !== 0 || !line) return reject(new Error(`wrk failed (exit ${code}): ${out.slice(-600)}`));
      const s = JSON.parse(line[1]);
      const seconds = s.durationUs / 1e6;
      resolvePromise({
        responses: s.requests,
        rps: Math.round((s.requests - s.status) / seconds),
        errors: { status: s.status, connect: s.connect, read: s.read, write: s.write, timeout: s.timeout },
        p50Ms: s.p50 / 1000,
        p99Ms: s.p99 / 1000,
        maxMs: s.max / 1000,
      });
    });
  });
}

/** A request that must answer 200 (and a stream that ends in [DONE]) before any load is sent. */
async function probe(target, stream) {
  const res = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
  const text = await res.text();
  if (res.status !== 200 || (stream ? !text.includes('[DONE]') : !text.startsWith('{'))) throw new Error(`probe of ${target.url} answered ${res.status}: ${text.slice(0, 400)}`);
}

/** A measured run against the gateway, with the process tree sampled before and after. */
async function measureGateway(gateway, target, stream) {
  await probe(target, stream);
  const before = sampleTree(gateway.pid);
  // Workers only where there are workers: the primary's waits are not the requests' waits.
  const tree = processTree(gateway.pid);
  const stopSampling = sampleSyscalls(tree.length > 1 ? tree.slice(1) : tree);
  const tcpBefore = readTcpCounters();
  const startedAt = Date.now();
  const result = await runWrk(target, settings.durationS);
  const endedAt = Date.now();
  const tcp = tcpCountersMoved(tcpBefore, readTcpCounters());
  const mainThreadStates = stopSampling();
  const procs = diffTree(before, sampleTree(gateway.pid), gateway.pid);
  // The preload writes once a second: wait for the line that covers the run's last second.
  if (settings.timing) await new Promise((r) => setTimeout(r, 1100));
  const gatewaySide = settings.timing ? readRequestTiming(gateway.timingDir, startedAt, endedAt) : undefined;
  return { ...result, tcp, gatewaySide, mainThreadStates, cpuPerRequestUs: Math.round((procs.cpuS / Math.max(1, result.responses)) * 1e6), rssMiB: Math.round(procs.rssMiB), hwmMiB: Math.round(procs.hwmMiB), procs };
}

async function startGateway(upstream, workers) {
  const dataDir = await prepareDataDir(root);
  const port = await freePort();
  const launch = shippedLaunch(root);
  const timingDir = join(outDir, '.timing', String(workers));
  mkdirSync(timingDir, { recursive: true });
  const gatewayEnv = { ...launch.env, ...oursEnv({ openai: upstream, gemini: upstream }, dataDir, port), GATEWAY_WORKERS: String(workers), GATEWAY_TIMING_DIR: timingDir };
  const timing = settings.timing ? ['--import', join(root, 'bench/lib/request-timing.mjs')] : [];
  const node = [process.execPath, ...launch.flags, ...timing, join(root, 'dist/cli.js'), 'start'];
  const child = await startProcess('gateway', 'taskset', ['-c', gatewayCpus, ...node], {
    env: gatewayEnv,
    ready: (line) => line.includes('gateway listening') || undefined,
    timeoutMs: 60_000,
  });
  return { ...child, url: `http://127.0.0.1:${port}`, dataDir, timingDir };
}

async function main() {
  log(`cpus ${cpus}: upstream ${upstreamCpus}, wrk ${wrkCpus}, gateway ${gatewayCpus}; threads per core ${layout.threadsPerCore ?? '?'}`);
  const upstreamPort = await freePort();
  const upstreamProc = await startProcess('upstream', 'taskset', ['-c', upstreamCpus, process.execPath, join(here, 'upstream.js'), root, String(upstreamPort), String(settings.upstreamProcesses)], {
    ready: (line) => (line.startsWith('{') ? JSON.parse(line) : undefined),
  });
  const upstream = upstreamProc.value.openai;
  const startedAt = Date.now();
  const results = { settings, cpus, layout, node: process.version, direct: {}, runs: [] };
  try {
    for (const [name, body, stream] of [['chat', chatBody('gpt-4.1'), false], ['stream20', streamBody('gpt-4.1'), true]]) {
      const target = request(upstream, 'simulator-key', body);
      await probe(target, stream);
      await runWrk(target, settings.warmupS);
      const tcpBefore = readTcpCounters();
      results.direct[name] = await runWrk(target, settings.durationS);
      results.direct[name].tcp = tcpCountersMoved(tcpBefore, readTcpCounters());
      log(`direct ${name}: ${results.direct[name].rps} req/s, p99 ${results.direct[name].p99Ms} ms`);
    }
    for (const workers of settings.workers) {
      const gateway = await startGateway(upstream, workers);
      try {
        await runWrk(request(gateway.url, BOOTSTRAP_KEY, chatBody('delta-4.1')), settings.warmupS);
        const keys = [['bootstrap', BOOTSTRAP_KEY]];
        if (settings.limitedWorkers.includes(workers)) keys.push(['limited', LIMITED_KEY]);
        for (const [keyName, key] of keys) {
          for (const [name, body, stream] of [['chat', chatBody('delta-4.1'), false], ['stream20', streamBody('delta-4.1'), true]]) {
            const run = await measureGateway(gateway, request(gateway.url, key, body), stream);
            results.runs.push({ workers, key: keyName, scenario: name, ...run });
            const primary = run.procs.processes.find((p) => p.role === 'primary');
            log(`workers ${workers} ${keyName} ${name}: ${run.rps} req/s, p50 ${run.p50Ms} p99 ${run.p99Ms} ms, ${run.cpuPerRequestUs} µs CPU/req, RSS ${run.rssMiB} MiB, primary CPU ${primary?.cpu}`);
            writeFileSync(join(outDir, 'results.json'), JSON.stringify(results, null, 1));
          }
        }
      } finally {
        await gateway.stop();
        removeDataDir(gateway.dataDir);
      }
    }
  } finally {
    await upstreamProc.stop();
  }
  const longStreams = settings.longStreams.length ? await measureLongStreams() : undefined;
  results.elapsedS = (Date.now() - startedAt) / 1000;
  writeFileSync(join(outDir, 'results.json'), JSON.stringify({ ...results, longStreams }, null, 1));
  const markdown = renderMarkdown(results) + (longStreams ? `\n${longStreamsMarkdown(longStreams).replace(/^# /, '## ')}` : '');
  writeFileSync(join(outDir, 'results.md'), markdown);
  process.stdout.write(markdown);
}

/** The long-stream table with the upstream, the load clients and the one gateway process pinned apart. */
async function measureLongStreams() {
  const options = {
    streams: settings.longStreams,
    streamS: settings.streamS,
    plateauS: settings.plateauS,
    intervalMs: 50,
    upstreamProcesses: settings.upstreamProcesses,
    clientProcesses: settings.clientProcesses,
    pin: cpus >= 16 ? { upstream: upstreamCpus, client: wrkCpus, gateway: gatewayCpus } : undefined,
  };
  const result = await runLongStreams(root, options, log);
  return {
    date: new Date().toISOString().slice(0, 10),
    command: `bench/many-core/run.js (LONG_STREAMS=${settings.longStreams.join(',')} STREAM_S=${settings.streamS} PLATEAU_S=${settings.plateauS} CLIENT_PROCESSES=${settings.clientProcesses})`,
    machine: { cpus, cpuModel: listCpus()[0]?.model ?? 'unknown', node: process.version, loadAverageAtStart: Math.round(loadavg()[0] * 100) / 100 },
    options,
    openFiles: { soft: result.limit?.soft ?? null, hard: result.limit?.hard ?? null, raisedTo: result.openFiles ?? null },
    skipped: result.skipped,
    levels: result.levels,
    targets: checkLongStreamTargets(result.levels),
  };
}

main().catch((error) => {
  log(`many-core: ${error.stack ?? error}`);
  process.exit(1);
});
