// `npm run bench -- --long-streams 1000,5000 --stream-seconds 10` (issue 36): real LLM latency.
// A fake upstream streams a token every --token-interval-ms (50) for --stream-seconds; the load
// client keeps C streams open at once, first straight to that upstream, then through one freshly
// started gateway, and the bench measures from outside: the server's RSS and CPU from /proc, time
// to first token at the client, and /healthz latency (its event-loop delay) from this process.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BOOTSTRAP_KEY, prepareDataDir, removeDataDir, startOurs } from './setup.js';
import { cpuSeconds, currentRss, machineBusySeconds, openFileLimit, pinned, startProcess, withOpenFileLimit } from './procs.js';

const here = dirname(fileURLToPath(import.meta.url));
const SAMPLE_EVERY_MS = 250;
const PROBE_GAP_MS = 20;
/** Open files per stream in the gateway (a socket to the client, one to the upstream) plus headroom. */
export const openFilesFor = (streams) => 2 * streams + 1024;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n, digits = 3) => (n === null || n === undefined ? null : Math.round(n * 10 ** digits) / 10 ** digits);

function percentiles(values) {
  if (values.length === 0) return { count: 0, p50: null, p99: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
  return { count: sorted.length, p50: at(50), p99: at(99), max: at(100) };
}

/** Which stream counts this machine's open-file limit allows, and a message for the others. */
export function checkOpenFiles(streams, limit = openFileLimit()) {
  const hard = limit?.hard ?? Infinity;
  const fits = streams.filter((c) => openFilesFor(c) <= hard);
  const skipped = streams
    .filter((c) => openFilesFor(c) > hard)
    .map((c) => ({
      streams: c,
      reason: `needs ${openFilesFor(c)} open files in the gateway; the hard limit here is ${hard} (ulimit -Hn). Raise it ` +
        `(as root: ulimit -Hn ${openFilesFor(c)}; systemd LimitNOFILE=; docker --ulimit nofile=${openFilesFor(c)}) or ask for fewer streams`,
    }));
  return { limit, fits, skipped };
}

/** Ephemeral ports for 2 × streams connections on loopback (client→gateway, gateway→upstream). */
function portsWarning(streams) {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return high - low + 1 < 2 * streams ? `only ${high - low + 1} ephemeral ports (net.ipv4.ip_local_port_range) for ${2 * streams} connections` : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one load client (its own process, open-file limit raised) and collects its messages. */
function runClient(config, openFiles, cpus, onProgress) {
  const [command, args] = pinned(cpus, ...withOpenFileLimit(openFiles, process.execPath, [join(here, 'long-stream-client.js'), JSON.stringify(config)]));
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const report = new Promise((resolve, reject) => {
    let done;
    child.on('message', (message) => (message.type === 'progress' ? onProgress(message) : (done = message)));
    child.on('exit', (code) => (done ? resolve(done) : reject(new Error(`long-stream client exited (${code}) before its report`))));
  });
  return { pid: child.pid, report };
}

/**
 * `processes` load clients, each with its share of the arrivals (one Node process reads at most
 * some 100,000 chunks a second): their progress summed, their reports merged.
 */
function runClients(config, openFiles, processes, cpus, onProgress) {
  const latest = new Array(processes).fill({ open: 0, waiting: 0 });
  const clients = Array.from({ length: processes }, (_, i) =>
    runClient({ ...config, arrivalsPerS: config.arrivalsPerS / processes }, openFiles, cpus, (progress) => {
      latest[i] = progress;
      onProgress({ open: latest.reduce((sum, p) => sum + p.open, 0), waiting: latest.reduce((sum, p) => sum + p.waiting, 0) });
    }),
  );
  const report = Promise.all(clients.map((c) => c.report)).then(mergeReports);
  return { pids: clients.map((c) => c.pid), report };
}

function mergeReports(reports) {
  const sum = (field) => reports.reduce((total, r) => total + r[field], 0);
  const counts = (field) => {
    const merged = {};
    for (const r of reports) for (const [name, n] of Object.entries(r[field])) merged[name] = (merged[name] ?? 0) + n;
    return merged;
  };
  return {
    streams: sum('streams'),
    completed: sum('completed'),
    incomplete: sum('incomplete'),
    failed: sum('failed'),
    statuses: counts('statuses'),
    errorCodes: counts('errorCodes'),
    ttftMs: percentiles(reports.flatMap((r) => r.plateauTtftRaw)),
    ttftAllMs: percentiles(reports.flatMap((r) => r.allTtftRaw)),
  };
}

/** /healthz every PROBE_GAP_MS, one at a time; each answer's latency with when it was asked. */
function startProber(url, startedAt) {
  const probes = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const sent = performance.now();
      try {
        await fetch(url, { signal: AbortSignal.timeout(10_000) }).then((r) => r.arrayBuffer());
        probes.push({ atS: (sent - startedAt) / 1000, ms: performance.now() - sent });
      } catch {
        probes.push({ atS: (sent - startedAt) / 1000, ms: 10_000 });
      }
      await sleep(PROBE_GAP_MS);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return probes;
  };
}

/** A few short streams first: pools, JIT and the first SQLite writes, out of the idle figure. */
async function warmUp(request) {
  const body = request.body.replace(/"max_tokens":\d+/, '"max_tokens":2');
  await Promise.all(Array.from({ length: 20 }, () => fetch(request.url, { method: 'POST', headers: request.headers, body }).then((r) => r.text())));
}

/**
 * One phase: C streams to `request`, the serving process `server` watched. The plateau is the
 * window after the first streams' length (open count levelled off) until arrivals stop.
 */
async function measurePhase({ request, server, upstream, healthz, streams, options, openFiles }) {
  await warmUp(request);
  await sleep(1000);
  const idleRssBytes = currentRss(server.pid);
  const { streamS, plateauS, intervalMs } = options;
  const tokens = Math.max(1, Math.round((streamS * 1000) / intervalMs));
  const config = {
    url: request.url,
    headers: request.headers,
    body: request.body.replace(/"max_tokens":\d+/, `"max_tokens":${tokens}`),
    arrivalsPerS: streams / streamS,
    arriveForS: streamS + plateauS,
    plateauFromS: streamS,
  };
  const startedAt = performance.now();
  const samples = [];
  let latest = { open: 0, waiting: 0 };
  const stopProber = startProber(healthz, startedAt);
  const client = runClients(config, openFiles, options.clientProcesses ?? 1, options.pin?.client, (progress) => (latest = progress));
  // Machine busy time outside the server, the upstream and the clients: other work on the box.
  const ours = () => cpuSeconds(server.pid) + (upstream ? cpuSeconds(upstream.pid) : 0) + client.pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const sampler = setInterval(
    () => samples.push({ atS: (performance.now() - startedAt) / 1000, rssBytes: currentRss(server.pid), cpuS: cpuSeconds(server.pid), otherS: machineBusySeconds() - ours(), open: latest.open }),
    SAMPLE_EVERY_MS,
  );
  const report = await client.report;
  clearInterval(sampler);
  const probes = await stopProber();
  // Plateau: from one stream length (plus a second to settle) until arrivals stop.
  const from = streamS + 1;
  const to = streamS + plateauS;
  const plateau = samples.filter((s) => s.atS >= from && s.atS <= to);
  const first = plateau[0];
  const last = plateau.at(-1);
  const streamSeconds = plateau.slice(1).reduce((sum, s, i) => sum + s.open * (s.atS - plateau[i].atS), 0);
  const meanOpen = plateau.length ? plateau.reduce((sum, s) => sum + s.open, 0) / plateau.length : 0;
  const plateauRss = plateau.length ? percentiles(plateau.map((s) => s.rssBytes)).p50 : null;
  return {
    streams,
    idleRssMb: round(idleRssBytes / 1048576, 1),
    plateauRssMb: plateauRss === null ? null : round(plateauRss / 1048576, 1),
    meanOpenStreams: Math.round(meanOpen),
    rssPerStreamKiB: meanOpen > 0 && plateauRss !== null ? round((plateauRss - idleRssBytes) / meanOpen / 1024, 2) : null,
    cpuUsPerStreamSecond: streamSeconds > 0 ? round(((last.cpuS - first.cpuS) / streamSeconds) * 1e6, 2) : null,
    coresAtPlateau: plateau.length > 1 ? round((last.cpuS - first.cpuS) / (last.atS - first.atS), 2) : null,
    otherCoresAtPlateau: plateau.length > 1 ? round(Math.max(0, last.otherS - first.otherS) / (last.atS - first.atS), 2) : null,
    ttftMs: report.ttftMs,
    ttftAllMs: report.ttftAllMs,
    healthzMs: percentiles(probes.filter((p) => p.atS >= from && p.atS <= to).map((p) => p.ms)),
    completed: report.completed,
    incomplete: report.incomplete,
    failed: report.failed,
    statuses: report.statuses,
    errorCodes: report.errorCodes,
  };
}

/**
 * @param {{streams: number[], streamS: number, plateauS: number, intervalMs: number,
 *          gatewayNodeFlags?: string[], upstreamProcesses?: number, clientProcesses?: number,
 *          pin?: {upstream?: string, client?: string, gateway?: string}}} options
 *   `pin`: CPU lists for taskset (many-core runs: bench/many-core/run.js); none by default.
 */
export async function runLongStreams(root, options, log) {
  const { limit, fits, skipped } = checkOpenFiles(options.streams);
  log(`open files: soft ${limit?.soft ?? '?'}, hard ${limit?.hard ?? '?'} (ulimit -n / -Hn); each process started here raises its own soft limit`);
  for (const s of skipped) log(`warning: ${s.streams} streams skipped: ${s.reason}`);
  const levels = [];
  if (fits.length === 0) return { limit, skipped, levels };
  const openFiles = openFilesFor(Math.max(...fits));
  const ports = portsWarning(Math.max(...fits));
  if (ports) log(`warning: ${ports}`);
  const upstreamArgs = [join(here, 'slow-stream-upstream.js'), '--interval-ms', String(options.intervalMs), '--processes', String(options.upstreamProcesses ?? 1)];
  const [command, args] = pinned(options.pin?.upstream, ...withOpenFileLimit(openFiles, process.execPath, upstreamArgs));
  const upstream = await startProcess('long-stream upstream', command, args, { ready: (line) => (line.startsWith('{') ? JSON.parse(line) : undefined) });
  const upstreamUrl = upstream.value.url;
  const dataDir = await prepareDataDir(root);
  const body = (model) => JSON.stringify({ model, stream: true, max_tokens: 1, messages: [{ role: 'user', content: 'Tell me a long story.' }] });
  const json = { 'content-type': 'application/json' };
  try {
    for (const streams of fits) {
      log(`long streams: ${streams} open at once, ${options.streamS} s each (a token every ${options.intervalMs} ms), plateau ${options.plateauS} s`);
      const direct = await measurePhase({
        request: { url: `${upstreamUrl}/v1/chat/completions`, headers: { ...json, authorization: 'Bearer simulator-key' }, body: body('gpt-4.1') },
        server: upstream,
        healthz: `${upstreamUrl}/healthz`,
        streams,
        options,
        openFiles,
      });
      log(`  direct: ${summary(direct)}`);
      // Every public model of the bench config goes to the slow upstream; a fresh gateway per level.
      const ours = await startOurs(root, { openai: upstreamUrl, gemini: upstreamUrl }, dataDir, { nodeFlags: options.gatewayNodeFlags, openFiles, cpus: options.pin?.gateway });
      try {
        const through = await measurePhase({
          request: { url: `${ours.url}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${BOOTSTRAP_KEY}` }, body: body('delta-4.1') },
          server: ours,
          upstream,
          healthz: `${ours.url}/healthz`,
          streams,
          options,
          openFiles,
        });
        log(`  ours:   ${summary(through)}`);
        const added = (p) => (through.ttftMs[p] !== null && direct.ttftMs[p] !== null ? round(through.ttftMs[p] - direct.ttftMs[p]) : null);
        levels.push({ streams, direct, ours: through, addedTtftMs: { p50: added('p50'), p99: added('p99') } });
      } finally {
        await ours.stop();
      }
    }
  } finally {
    await upstream.stop();
    removeDataDir(dataDir);
  }
  return { limit, openFiles, skipped, levels };
}

function summary(r) {
  return `${r.meanOpenStreams} open, RSS ${r.idleRssMb} → ${r.plateauRssMb} MB (${r.rssPerStreamKiB} KiB/stream), ` +
    `${r.cpuUsPerStreamSecond} µs CPU per stream-second, TTFT p50 ${r.ttftMs.p50} p99 ${r.ttftMs.p99} ms, ` +
    `/healthz p99 ${r.healthzMs.p99} ms, ${r.completed} complete, ${r.incomplete + r.failed} failed, other work ${r.otherCoresAtPlateau} cores`;
}
