// `npm run bench -- --soak 10`: our gateway under steady load for N minutes (a fixed request rate,
// not saturation), its RSS sampled every 5 s, to show whether memory grows over time. The load is
// the real hot path: the rate-limited key, non-stream and 20-event streams together.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import autocannon from 'autocannon';
import { buildScenarios } from './scenarios.js';
import { BOOTSTRAP_KEY, LIMITED_KEY, prepareDataDir, removeDataDir, startOurs, startUpstream } from './setup.js';
import { cpuSeconds, currentRss } from './procs.js';

const SAMPLE_EVERY_MS = 5000;
/** Requests per second: well under saturation on two shared cores, so the rate stays steady. */
const RATES = { 'auth-limited': 1500, 'auth-stream-20': 300 };

function steadyLoad(request, rate, durationS) {
  return new Promise((resolve, reject) => {
    autocannon({ ...request, method: 'POST', connections: 32, overallRate: rate, duration: durationS, timeout: 30 }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

export async function runSoak(root, minutes, outDir, log) {
  const upstream = await startUpstream(root, { slow: false });
  const dataDir = await prepareDataDir(root);
  const ours = await startOurs(root, upstream.value, dataDir);
  try {
    const ctx = { upstream: upstream.value, gateway: ours.url, keys: { bootstrap: BOOTSTRAP_KEY, limited: LIMITED_KEY } };
    const scenarios = buildScenarios(ctx).filter((s) => s.name in RATES);
    const durationS = Math.round(minutes * 60);
    const samples = [];
    const startedAt = Date.now();
    const cpu0 = cpuSeconds(ours.pid);
    const timer = setInterval(() => {
      samples.push({ t: Math.round((Date.now() - startedAt) / 1000), rssBytes: currentRss(ours.pid) });
      if (samples.length % 12 === 0) log(`  ${samples.at(-1).t} s: RSS ${mb(samples.at(-1).rssBytes)} MB`);
    }, SAMPLE_EVERY_MS);
    const results = await Promise.all(scenarios.map((s) => steadyLoad(s.targets.ours, RATES[s.name], durationS)));
    clearInterval(timer);
    const cpu = cpuSeconds(ours.pid) - cpu0;
    // Compare the second and the last two minutes (the first is warm-up: pools, JIT, heap sizing).
    const window = Math.max(1, Math.round(120_000 / SAMPLE_EVERY_MS));
    const early = samples.slice(window, 2 * window).map((s) => s.rssBytes);
    const late = samples.slice(-window).map((s) => s.rssBytes);
    const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
    const errors = results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0);
    const run = {
      date: new Date().toISOString().slice(0, 10),
      command: `npm run bench -- --soak ${minutes}`,
      minutes,
      rates: RATES,
      requests,
      errors,
      cpuUsPerRequest: Math.round((cpu / Math.max(1, requests)) * 1e6),
      rssMedianMb: { minute2to4: mb(median(early)), last2Minutes: mb(median(late)) },
      rssMaxMb: mb(Math.max(...samples.map((s) => s.rssBytes))),
      growthMb: mb(median(late) - median(early)),
      samples: samples.map((s) => ({ t: s.t, rssMb: mb(s.rssBytes) })),
    };
    const md = [
      `# Soak: ${minutes} minutes at steady load (${run.date})`,
      '',
      `\`${run.command}\`: ${Object.entries(RATES).map(([n, r]) => `${n} at ${r} req/s`).join(', ')}, the gateway as \`npm start\` runs it.`,
      '',
      '| requests | errors | CPU µs/request | RSS median, minutes 2–4 | RSS median, last 2 minutes | growth | RSS max |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      `| ${requests} | ${errors} | ${run.cpuUsPerRequest} | ${run.rssMedianMb.minute2to4} MB | ${run.rssMedianMb.last2Minutes} MB | ${run.growthMb} MB | ${run.rssMaxMb} MB |`,
      '',
    ].join('\n');
    mkdirSync(outDir, { recursive: true });
    const base = join(outDir, `${run.date}-soak`);
    writeFileSync(`${base}.json`, JSON.stringify(run, null, 2) + '\n');
    writeFileSync(`${base}.md`, md);
    process.stdout.write(md);
    log(`\nwrote ${relative(root, base)}.json and .md`);
  } finally {
    await ours.stop();
    await upstream.stop();
    removeDataDir(dataDir);
  }
}
