// `npm run bench -- --profile`: our gateway alone under load, one gateway process per scenario
// started with --cpu-prof, then a summary of where its CPU time went (bench/lib/profile.js).
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildScenarios } from './scenarios.js';
import { BOOTSTRAP_KEY, LIMITED_KEY, prepareDataDir, removeDataDir, startOurs, startUpstream } from './setup.js';
import { cpuSeconds } from './procs.js';
import { probe, runLoad } from './load.js';
import { profileMarkdown, summariseProfile } from './profile.js';

export async function runProfiles(root, options, outDir, log) {
  mkdirSync(outDir, { recursive: true });
  const upstream = await startUpstream(root, { slow: false });
  const report = [`# CPU profiles of the gateway (${new Date().toISOString().slice(0, 10)})`, ''];
  try {
    for (const name of options.scenarios) {
      const dataDir = await prepareDataDir(root);
      const profDir = join(outDir, `tmp-${name}`);
      const ours = await startOurs(root, upstream.value, dataDir, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
      try {
        const ctx = { upstream: upstream.value, gateway: ours.url, keys: { bootstrap: BOOTSTRAP_KEY, limited: LIMITED_KEY } };
        const scenario = buildScenarios(ctx).find((s) => s.name === name);
        if (!scenario) throw new Error(`no scenario named ${name}`);
        const request = scenario.targets.ours;
        const answer = await probe(request);
        if (answer.status !== 200) throw new Error(`${name}: gateway answered ${answer.status}: ${answer.text.slice(0, 200)}`);
        const connections = (options.concurrency ?? [64])[0];
        await runLoad({ ...request, connections, durationS: options.warmupS });
        const cpu0 = cpuSeconds(ours.pid);
        const result = await runLoad({ ...request, connections, durationS: options.durationS });
        const cpu = cpuSeconds(ours.pid) - cpu0;
        const line = `${name} c${connections}: ${Math.round(result.rps)} req/s, p50 ${result.latencyMs.p50} ms, errors ${result.errors}, ` +
          `gateway CPU ${Math.round((cpu / Math.max(1, result.responses)) * 1e6)} µs/request (profiler on: slower than the plain run)`;
        log(line);
        report.push(line, '');
      } finally {
        await ours.stop();
        removeDataDir(dataDir);
      }
      const written = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'));
      if (written.length === 0) throw new Error(`${name}: the gateway wrote no .cpuprofile`);
      const file = join(outDir, `${name}.cpuprofile`);
      renameSync(join(profDir, written[0]), file);
      rmSync(profDir, { recursive: true, force: true });
      report.push(profileMarkdown(`${name} (${relative(root, file)})`, summariseProfile(file, root)));
    }
  } finally {
    await upstream.stop();
  }
  const summaryPath = join(outDir, 'summary.md');
  writeFileSync(summaryPath, report.join('\n'));
  process.stdout.write(report.join('\n'));
  log(`\nwrote ${relative(root, summaryPath)} and the .cpuprofile files beside it (open them in Chrome DevTools)`);
}
