// `npm run bench -- --floor`: the gateway on its real hot path (the rate-limited key) beside two
// pass-through proxies that do nothing else (floor-proxy.js), all against the same upstream, in
// interleaved rounds. What the gateway costs above the `node` floor is its own work; the
// `fastify` floor is the reference proxy. Unlike Portkey, the floors move with the
// machine alone, so their ratios stay comparable between runs and machines.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildScenarios, probeLooksRight } from './scenarios.js';
import { BOOTSTRAP_KEY, LIMITED_KEY, prepareDataDir, removeDataDir, shippedLaunch, startOurs, startUpstream } from './setup.js';
import { freePort, startProcess } from './procs.js';
import { probe, runLoadWith } from './load.js';
import { measure, medianRound } from './measure.js';

const PROXY = fileURLToPath(new URL('./floor-proxy.js', import.meta.url));
/** The scenarios measured unless `--scenarios` names others (the embeddings ones, issue 29). */
const SCENARIOS = ['auth-limited', 'auth-stream-20'];
const TARGETS = ['direct', 'floor-node', 'floor-fastify', 'ours'];

/** A floor proxy, started with the gateway's own node flags and environment (same heap settings). */
async function startFloor(root, kind, upstream) {
  const port = await freePort();
  const { flags, env } = shippedLaunch(root);
  const child = await startProcess(`floor-${kind}`, process.execPath, [...flags, PROXY, kind, upstream, String(port)], { env, ready: (line) => line === 'ready' || undefined });
  return { ...child, url: `http://127.0.0.1:${port}` };
}

export async function runFloor(root, options, outDir, log) {
  const upstream = await startUpstream(root, { slow: false });
  const dataDir = await prepareDataDir(root);
  // `upstream` is also the server of the direct target (measure() reads the upstream's CPU from it).
  const servers = { upstream };
  const serverOf = (target) => servers[target === 'direct' ? 'upstream' : target];
  const rounds = Math.max(3, options.rounds);
  const connections = options.concurrency?.[0] ?? 64;
  const report = { date: new Date().toISOString().slice(0, 10), loader: options.loader, connections, rounds, durationS: options.durationS, scenarios: [] };
  try {
    servers.ours = await startOurs(root, upstream.value, dataDir);
    servers['floor-node'] = await startFloor(root, 'node', upstream.value.openai);
    servers['floor-fastify'] = await startFloor(root, 'fastify', upstream.value.openai);
    const all = buildScenarios({ upstream: upstream.value, gateway: servers.ours.url, keys: { bootstrap: BOOTSTRAP_KEY, limited: LIMITED_KEY } });
    // The Fastify floor serves chat completions only: other scenarios (`--scenarios embeddings`) skip it.
    const targets = options.scenarios ? TARGETS.filter((t) => t !== 'floor-fastify') : TARGETS;
    for (const scenario of all.filter((s) => (options.scenarios ?? SCENARIOS).includes(s.name))) {
      const direct = scenario.targets.direct;
      const requests = {
        direct,
        ours: scenario.targets.ours,
        'floor-node': { ...direct, url: direct.url.replace(upstream.value.openai, servers['floor-node'].url) },
        'floor-fastify': { ...direct, url: direct.url.replace(upstream.value.openai, servers['floor-fastify'].url) },
      };
      for (const target of targets) {
        const answer = await probe(requests[target]);
        if (!probeLooksRight(scenario, answer)) throw new Error(`${scenario.name}/${target} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
        await runLoadWith(options.loader, { ...requests[target], connections, durationS: options.warmupS });
      }
      const samples = Object.fromEntries(targets.map((t) => [t, []]));
      for (let round = 1; round <= rounds; round++) {
        for (const target of targets) {
          const result = await measure({
            loader: options.loader, target, request: requests[target], servers, server: serverOf(target), connections, durationS: options.durationS,
          });
          samples[target].push(result);
          log(`  ${scenario.name} ${target.padEnd(13)} ${String(Math.round(result.rps)).padStart(6)} req/s  cpu ${result.cpuUsPerRequest} µs/req  (round ${round})`);
        }
      }
      const results = targets.map((target) => medianRound(samples[target]));
      report.scenarios.push({ name: scenario.name, description: scenario.description, results });
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    removeDataDir(dataDir);
  }
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `${report.date}-floor${report.loader === 'wrk' ? '-wrk' : ''}`);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(`${base}.md`, floorMarkdown(report));
  process.stdout.write(floorMarkdown(report));
  log(`\nwrote ${relative(root, base)}.json and .md`);
}

function floorMarkdown(report) {
  const lines = [
    `# Gateway against pass-through floors (${report.date})`,
    '',
    `\`npm run bench -- --floor${report.loader === 'wrk' ? ' --loader wrk' : ''}\`: c${report.connections}, load from ${report.loader}, ` +
      `${report.durationS} s per measurement, medians of ${report.rounds} interleaved rounds. Server CPU is the process's utime + stime per response.`,
    '',
    '- `floor-node`: node:http + undici dispatch, bytes relayed (the least a Node proxy spends)',
    '- `floor-fastify`: the issue\'s bare Fastify + undici pass-through (body parsed and re-serialised, `request()`, body piped back)',
    '- `ours`: the rate-limited key: auth, validation, limit check, routing, translation, usage event, metrics',
    '- all three run with the node flags and environment the gateway ships with (`src/cli.ts` shebang)',
    '',
  ];
  for (const scenario of report.scenarios) {
    const by = Object.fromEntries(scenario.results.map((r) => [r.target, r]));
    lines.push(`## ${scenario.name}`, '', scenario.description, '');
    lines.push('| target | req/s | server CPU µs/req | × floor-node CPU | p50 ms | errors | peak RSS MB |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const r of scenario.results) {
      const times = r.target === 'direct' ? '–' : (r.cpuUsPerRequest / by['floor-node'].cpuUsPerRequest).toFixed(2);
      lines.push(`| ${r.target} | ${Math.round(r.rps)} | ${Math.round(r.cpuUsPerRequest)} | ${times} | ${r.latencyMs.p50} | ${r.errors} | ${(r.peakRssBytes / 1048576).toFixed(1)} |`);
    }
    const ownWork = Math.round(by.ours.cpuUsPerRequest - by['floor-node'].cpuUsPerRequest);
    lines.push('', `The gateway's own work above the node floor: ${ownWork} µs per request.`, '');
  }
  return lines.join('\n');
}
