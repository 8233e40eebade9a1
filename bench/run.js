#!/usr/bin/env node
// npm run bench [-- --quick | --profile | --alloc | --scenarios chat,stream --concurrency 1,64 --duration 5
//                   --warmup 1 --rounds 3 --no-portkey --workers N --out DIR --no-build --loader wrk | --floor
//                   --gateway-node-flags=--max-semi-space-size=16 | --soak MINUTES | --idle-seconds N
//                   | --long-streams [1000,5000] --stream-seconds 10 --plateau-seconds 5 --token-interval-ms 50]
// Starts the upstream simulator, our gateway and Portkey as child processes, then measures each
// scenario direct / ours / Portkey in turn at each concurrency. See README "Benchmarks".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildScenarios, probeLooksRight } from './lib/scenarios.js';
import { BOOTSTRAP_KEY, CACHED_KEY, LIMITED_KEY, prepareDataDir, removeDataDir, startOurs, startPortkey, startUpstream } from './lib/setup.js';
import { measure, medianRound, round } from './lib/measure.js';
import { probe, runLoadWith } from './lib/load.js';
import { wrkAvailable } from './lib/load-wrk.js';
import { checkTargets, markdown } from './lib/report.js';
import { chartSvg } from './lib/chart.js';
import { runProfiles } from './lib/profile-run.js';
import { runAllocations } from './lib/alloc-run.js';
import { runSoak } from './lib/soak.js';
import { runFloor } from './lib/floor-run.js';
import { measureIdleRss } from './lib/idle.js';
import { runLongStreams } from './lib/long-streams.js';
import { checkLongStreamTargets, longStreamsMarkdown } from './lib/long-streams-report.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `--long-streams` alone means the default counts, sized for a 2-core machine.
const DEFAULT_LONG_STREAMS = '1000,5000';
const argv = process.argv.slice(2);
const bare = argv.findIndex((arg, i) => arg === '--long-streams' && (argv[i + 1] === undefined || argv[i + 1].startsWith('--')));
if (bare >= 0) argv.splice(bare + 1, 0, DEFAULT_LONG_STREAMS);
const { values: args } = parseArgs({
  args: argv,
  options: {
    quick: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    alloc: { type: 'boolean', default: false },
    scenarios: { type: 'string' },
    concurrency: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    'no-portkey': { type: 'boolean', default: false },
    workers: { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'gateway-node-flags': { type: 'string' },
    soak: { type: 'string' },
    loader: { type: 'string', default: 'autocannon' },
    floor: { type: 'boolean', default: false },
    'idle-seconds': { type: 'string' },
    'long-streams': { type: 'string' },
    'stream-seconds': { type: 'string' },
    'plateau-seconds': { type: 'string' },
    'token-interval-ms': { type: 'string' },
  },
});

const DEFAULT_CONCURRENCY = [1, 64, 256];
const options = {
  durationS: Number(args.duration ?? (args.quick ? 2 : args.profile ? 8 : 5)),
  warmupS: Number(args.warmup ?? (args.quick ? 0.5 : 1)),
  rounds: Math.max(1, Number(args.rounds ?? 1)),
  scenarios: args.scenarios?.split(',') ?? (args.quick ? ['chat'] : args.profile ? ['chat', 'stream'] : undefined),
  concurrency: args.concurrency?.split(',').map(Number) ?? (args.quick ? [8] : args.profile ? [64] : undefined),
  portkey: !args['no-portkey'] && !args.profile,
  workers: args.workers ? Number(args.workers) : undefined,
  gatewayNodeFlags: args['gateway-node-flags']?.split(/\s+/).filter(Boolean),
  loader: args.loader,
  // Idle RSS: how long the gateway is left alone (0: not measured). V8 gives memory back some 10-20 s in.
  idleS: Number(args['idle-seconds'] ?? (args.quick ? 6 : 30)),
};
if (!['autocannon', 'wrk'].includes(options.loader)) throw new Error(`--loader must be autocannon or wrk, got '${options.loader}'`);
const date = new Date().toISOString().slice(0, 10);
const outDir = args.out ?? join(root, 'bench/results', args.quick ? 'quick' : args.profile ? `profiles/${date}` : '');
const log = (line) => process.stderr.write(line + '\n');

function build() {
  if (args['no-build']) return;
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'pipe' });
  } catch (error) {
    // tsc emits despite type errors elsewhere in the tree; only a missing entry point is fatal.
    if (!existsSync(join(root, 'dist/cli.js')) || !existsSync(join(root, 'dist/cli/simulator-standalone.js'))) throw error;
    log('warning: tsc reported errors; benchmarking the emitted dist/ anyway');
  }
}

async function runScenario(scenario, servers) {
  const record = { name: scenario.name, description: scenario.description, results: [], skipped: [] };
  const targets = [];
  for (const name of ['direct', 'ours', 'portkey']) {
    const request = scenario.targets[name];
    if (!request) {
      if (name !== 'portkey' || options.portkey) record.skipped.push({ target: name, reason: 'no equivalent request' });
      continue;
    }
    const answer = await probe(request).catch((error) => ({ status: 0, text: String(error) }));
    if (!probeLooksRight(scenario, answer)) {
      record.skipped.push({ target: name, reason: `probe answered ${answer.status}: ${answer.text.slice(0, 160)}` });
      log(`  ${scenario.name}/${name}: probe failed (${answer.status}), skipped`);
      continue;
    }
    targets.push({ name, request, server: name === 'direct' ? servers.upstream : servers[name] });
  }
  const conns = scenario.concurrency ?? options.concurrency ?? DEFAULT_CONCURRENCY;
  const durationS = scenario.durationS ?? options.durationS;
  for (const t of targets) {
    await runLoadWith(options.loader, { ...t.request, connections: Math.min(64, Math.max(...conns)), durationS: options.warmupS });
  }
  for (const c of conns) {
    // Rounds interleave the targets (direct, ours, Portkey, direct, …) so a slow spell of the
    // machine hits them alike; each target reports its median round.
    const rounds = new Map(targets.map((t) => [t.name, []]));
    for (let pass = 1; pass <= options.rounds; pass++) {
      for (const t of targets) {
        const result = await measure({ loader: options.loader, target: t.name, request: t.request, servers, server: t.server, connections: c, durationS });
        rounds.get(t.name).push(result);
        log(`  ${scenario.name} c${c} ${t.name.padEnd(7)} ${String(Math.round(result.rps)).padStart(6)} req/s  p50 ${result.latencyMs.p50} ms  ` +
          `p99 ${result.latencyMs.p99} ms  errors ${result.errors}  cpu ${result.cpuUsPerRequest} µs/req  rss ${(result.peakRssBytes / 1048576).toFixed(1)} MB` +
          (options.rounds > 1 ? `  (round ${pass})` : '') +
          (result.otherCpuSeconds > 0.5 ? `  (other load: ${result.otherCpuSeconds} CPU s)` : ''));
      }
    }
    for (const t of targets) record.results.push(medianRound(rounds.get(t.name)));
  }
  return record;
}

async function main() {
  const startedAt = Date.now();
  // Anything else running (a test suite, a build) shares the two cores and skews every figure.
  const loadAverageAtStart = round(loadavg()[0], 2);
  if (loadAverageAtStart > 0.5) log(`warning: load average ${loadAverageAtStart} before the run; results will be noisy`);
  build();
  if (options.loader === 'wrk' && !(await wrkAvailable())) throw new Error('--loader wrk needs wrk on the PATH (apt-get install -y wrk)');
  if (args.profile) return runProfiles(root, options, outDir, log);
  if (args.alloc) {
    const connections = options.concurrency?.[0] ?? 64;
    return runAllocations(root, { ...options, connections, durationS: Number(args.duration ?? 4) }, args.out ?? join(root, 'bench/results'), log);
  }
  if (args.floor) return runFloor(root, options, args.out ?? join(root, 'bench/results'), log);
  if (args.soak) return runSoak(root, Number(args.soak), args.out ?? join(root, 'bench/results'), log);
  if (args['long-streams']) return longStreams(startedAt);
  let idle;
  if (options.idleS > 0) {
    idle = await measureIdleRss(root, { settleS: options.idleS });
    log(`idle RSS (embedded defaults, no request): ${idle.afterStartMb} MB 5 s after start, ${idle.settledMb} MB after ${idle.settleS} s`);
  }
  const upstream = await startUpstream(root);
  const dataDir = await prepareDataDir(root);
  const servers = { upstream };
  // Each scenario gets freshly started gateways: a process's heap stays at its high-water mark,
  // so one scenario's peak (100 KB bodies) would otherwise show up in every later one.
  const startGateways = async () => {
    servers.ours = await startOurs(root, upstream.value, dataDir, { workers: options.workers, nodeFlags: options.gatewayNodeFlags });
    if (options.portkey) servers.portkey = await startPortkey(root);
    return buildScenarios({
      upstream: upstream.value,
      gateway: servers.ours.url,
      portkey: servers.portkey?.url,
      keys: { bootstrap: BOOTSTRAP_KEY, limited: LIMITED_KEY, cached: CACHED_KEY },
    });
  };
  const stopGateways = async () => {
    await Promise.all([servers.ours?.stop(), servers.portkey?.stop()]);
    servers.ours = servers.portkey = undefined;
  };
  try {
    const all = await startGateways();
    if (options.portkey && !servers.portkey) log('Portkey is not installed (npm install): measuring without it');
    const chosen = options.scenarios ? all.filter((s) => options.scenarios.includes(s.name)) : all;
    if (chosen.length === 0) throw new Error(`no scenario named ${options.scenarios}; known: ${all.map((s) => s.name).join(', ')}`);
    const scenarios = [];
    for (const [index, { name }] of chosen.entries()) {
      let scenario = chosen[0];
      if (index > 0) {
        await stopGateways();
        scenario = (await startGateways()).find((s) => s.name === name);
      }
      log(`${scenario.name}: ${scenario.description}`);
      scenarios.push(await runScenario(scenario, servers));
    }
    const run = {
      date,
      command: `npm run bench${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}`,
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverageAtStart },
      options: { ...options, scenarios: chosen.map((s) => s.name) },
      wallSeconds: Math.round((Date.now() - startedAt) / 1000),
      ...(idle ? { idle } : {}),
      scenarios,
    };
    run.targets = checkTargets(scenarios, idle);
    mkdirSync(outDir, { recursive: true });
    // A wrk run sits beside the autocannon run of the same day instead of replacing it.
    const suffix = options.loader === 'wrk' ? '-wrk' : '';
    const base = join(outDir, date + suffix);
    const chart = join(outDir, `chart${suffix}.svg`);
    writeFileSync(`${base}.json`, JSON.stringify(run, null, 2) + '\n');
    writeFileSync(`${base}.md`, markdown(run));
    writeFileSync(chart, chartSvg(run));
    process.stdout.write(markdown(run));
    log(`\nwrote ${relative(root, base)}.json, .md and ${relative(root, chart)} in ${run.wallSeconds} s`);
  } finally {
    await Promise.all([stopGateways(), upstream.stop()]);
    removeDataDir(dataDir);
  }
}

/** The long-stream scenario (issue 36): its own table and goals, written to <date>-long-streams.*. */
async function longStreams(startedAt) {
  const longOptions = {
    streams: args['long-streams'].split(',').map(Number),
    streamS: Number(args['stream-seconds'] ?? 20),
    plateauS: Number(args['plateau-seconds'] ?? 5),
    intervalMs: Number(args['token-interval-ms'] ?? 50),
    gatewayNodeFlags: options.gatewayNodeFlags,
  };
  if (longOptions.streams.some((c) => !Number.isInteger(c) || c < 1)) throw new Error(`--long-streams takes stream counts such as 1000,5000; got '${args['long-streams']}'`);
  const loadAverageAtStart = round(loadavg()[0], 2);
  const result = await runLongStreams(root, longOptions, log);
  const run = {
    date,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverageAtStart },
    options: longOptions,
    openFiles: { soft: result.limit?.soft ?? null, hard: result.limit?.hard ?? null, raisedTo: result.openFiles ?? null },
    wallSeconds: Math.round((Date.now() - startedAt) / 1000),
    skipped: result.skipped,
    levels: result.levels,
    targets: checkLongStreamTargets(result.levels),
  };
  const dir = args.out ?? join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `${date}-long-streams`);
  writeFileSync(`${base}.json`, JSON.stringify(run, null, 2) + '\n');
  writeFileSync(`${base}.md`, longStreamsMarkdown(run));
  process.stdout.write(longStreamsMarkdown(run));
  log(`\nwrote ${relative(root, base)}.json and .md in ${run.wallSeconds} s`);
}

main().then(
  () => process.exit(0),
  (error) => {
    log(`bench: ${error.stack ?? error}`);
    process.exit(1);
  },
);
