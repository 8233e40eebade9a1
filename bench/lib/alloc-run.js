// `npm run bench -- --alloc`: bytes the gateway allocates per request, by scenario, with the
// functions and packages that allocate them. V8's sampling heap profiler records every sampled
// allocation, including objects a scavenge frees at once, so this is the allocation volume that
// drives GC work. It moves by about 1% between runs where throughput on a shared VM moves by
// 30%: the figure to follow a hot-path change with.
//
// The gateway runs inside this process (started as `npm start` starts it: dist/main.js with the
// bench's channels), so the inspector can sample it; the load comes from an autocannon child
// process, so the load generator's own allocations are never counted.
import { spawn } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildScenarios } from './scenarios.js';
import { BOOTSTRAP_KEY, LIMITED_KEY, oursEnv, prepareDataDir, removeDataDir, startUpstream } from './setup.js';

const DEFAULT_SCENARIOS = ['chat', 'auth-limited', 'stream', 'auth-stream-20'];
/** One sample per this many bytes allocated, on average (V8's default is 32 KB; finer is steadier). */
const SAMPLING_INTERVAL = 1024;

export async function runAllocations(root, options, outDir, log) {
  const upstream = await startUpstream(root, { slow: false });
  const dataDir = await prepareDataDir(root);
  const dist = (file) => import(pathToFileURL(join(root, 'dist', file)).href);
  const { loadConfig } = await dist('config/load.js');
  const { startGateway } = await dist('main.js');
  const gateway = await startGateway(loadConfig({ ...process.env, ...oursEnv(upstream.value, dataDir, 0) }), { announce: () => undefined });
  const session = new Session();
  session.connect();
  const date = new Date().toISOString().slice(0, 10);
  const report = [`# Allocations per request (${date})`, '', `\`npm run bench -- --alloc\`, c${options.connections}, ${options.durationS} s per scenario after a warm-up; sampling every ${SAMPLING_INTERVAL} bytes on average.`, ''];
  const rows = [];
  try {
    const ctx = { upstream: upstream.value, gateway: gateway.url, keys: { bootstrap: BOOTSTRAP_KEY, limited: LIMITED_KEY } };
    const all = buildScenarios(ctx);
    for (const name of options.scenarios ?? DEFAULT_SCENARIOS) {
      const scenario = all.find((s) => s.name === name);
      if (!scenario) throw new Error(`no scenario named ${name}; known: ${all.map((s) => s.name).join(', ')}`);
      const request = scenario.targets.ours;
      await autocannon(root, request, options.connections, Math.max(1, options.warmupS));
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: SAMPLING_INTERVAL,
        includeObjectsCollectedByMinorGC: true,
        includeObjectsCollectedByMajorGC: true,
      });
      const result = await autocannon(root, request, options.connections, options.durationS);
      const { profile } = await session.post('HeapProfiler.stopSampling');
      const requests = result.requests.total;
      if (requests === 0 || result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors`);
      const summary = summarise(profile, root);
      const perRequest = summary.total / requests;
      rows.push({ name, requests, bytesPerRequest: Math.round(perRequest) });
      log(`${name} c${options.connections}: ${requests} requests, ${(perRequest / 1024).toFixed(1)} KB allocated per request`);
      report.push(`## ${name}`, '', `${scenario.description}: ${requests} requests, **${(perRequest / 1024).toFixed(1)} KB per request**.`, '');
      report.push(table('by owner', summary.byOwner, requests, 12), table('by function', summary.byFunction, requests, 25));
    }
  } finally {
    session.disconnect();
    await gateway.close();
    await upstream.stop();
    removeDataDir(dataDir);
  }
  report.splice(4, 0, '| scenario | KB per request |', '| --- | --- |', ...rows.map((r) => `| ${r.name} | ${(r.bytesPerRequest / 1024).toFixed(1)} |`), '');
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${date}-alloc.md`);
  writeFileSync(file, report.join('\n'));
  writeFileSync(join(outDir, `${date}-alloc.json`), JSON.stringify({ date, connections: options.connections, durationS: options.durationS, scenarios: rows }, null, 2) + '\n');
  process.stdout.write(report.join('\n'));
  log(`\nwrote ${relative(root, file)} and .json`);
}

/** Runs the autocannon CLI in its own process and returns its JSON result. */
function autocannon(root, request, connections, durationS) {
  const args = [join(root, 'node_modules/autocannon/autocannon.js'), '-c', String(connections), '-d', String(durationS), '-m', request.method ?? 'POST', '-j'];
  if (request.body) args.push('-b', request.body);
  for (const [name, value] of Object.entries(request.headers ?? {})) args.push('-H', `${name}=${value}`);
  args.push(request.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err = (err + chunk).slice(-2000)));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited ${code}: ${err}`))));
  });
}

/** Self bytes of a sampling heap profile, by owner (our file, package, node module) and by function. */
function summarise(profile, root) {
  const byOwner = new Map();
  const byFunction = new Map();
  let total = 0;
  const add = (map, key, bytes) => map.set(key, (map.get(key) ?? 0) + bytes);
  const visit = (node) => {
    const bytes = node.selfSize;
    if (bytes > 0) {
      const { url, functionName, lineNumber } = node.callFrame;
      const file = url.replace(`file://${root}/`, '').replace(/^dist\//, '');
      const owner = url.includes('/node_modules/') ? url.split('/node_modules/').at(-1).split('/')[0] : url.startsWith('node:') ? url : url ? `ours: ${file}` : '(native)';
      add(byOwner, owner, bytes);
      add(byFunction, `${functionName || '(anonymous)'} ${file.replace(/.*\/node_modules\//, '')}:${lineNumber + 1}`, bytes);
      total += bytes;
    }
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return { total, byOwner, byFunction };
}

function table(title, map, requests, top) {
  const lines = [`| ${title} | bytes per request |`, '| --- | --- |'];
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`| ${key} | ${Math.round(bytes / requests)} |`);
  return lines.join('\n') + '\n';
}
