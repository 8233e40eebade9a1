#!/usr/bin/env node
// `npm test` as timed stages (issue 45): each prints its wall time against its budget, and a
// vitest stage over budget names its slowest files (from scripts/test-timing-reporter.mjs).
// .ci/run times its own steps (installs, the Node 24 smoke) through the same runner:
//
//   node scripts/test-stages.mjs                          every stage of `npm test`
//   node scripts/test-stages.mjs --stage npm-ci --budget 150 -- npm ci --no-audit
//   node scripts/test-stages.mjs --stage node24 --budget 150 --report node24 -- node vitest.mjs run ...
//   node scripts/test-stages.mjs --summary                the stages timed so far, with their total
//
// Budgets are for a quiet 2-core machine: `npm test` within 15 minutes, .ci/run within 25.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const timingDir = join(root, 'test-artifacts', 'timing');
const stagesFile = join(timingDir, 'stages.tsv');
const vitest = (...args) => ['npx', '--no-install', 'vitest', 'run', ...args];

/** The newest modification time under `paths` (files and folders, recursively), in ms. */
function newest(paths) {
  let latest = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const stat = statSync(path);
    latest = Math.max(latest, stat.isDirectory() ? newest(readdirSync(path).map((name) => join(path, name))) : stat.mtimeMs);
  }
  return latest;
}

/**
 * The console's bundle is as new as its sources: `npm install` (its prepare script) has just built
 * it on a fresh clone, and vite has no incremental mode. The TypeScript steps are incremental
 * (tsconfig.build.json, web/tsconfig.json, the typecheck's build info), so they run every time.
 */
function consoleBundleFresh() {
  const bundle = join(root, 'dist', 'web', 'index.html');
  if (!existsSync(bundle)) return false;
  const inputs = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'package-lock.json'].map((path) => join(root, path));
  return newest(inputs) < statSync(bundle).mtimeMs;
}

const TYPECHECK_INFO = join('node_modules', '.cache', 'tsc', 'typecheck.tsbuildinfo');

/** name, budget in seconds, commands run in turn (an object's `skip()` may pass over it), and the timing report naming its slowest files. */
const NPM_TEST = [
  // The web app is typechecked once, in `typecheck` (npm run build also checks it).
  { name: 'build', budget: 60, commands: [['npx', '--no-install', 'tsc', '-p', 'tsconfig.build.json'], { skip: consoleBundleFresh, command: ['npx', '--no-install', 'vite', 'build', 'web', '--logLevel', 'warn'] }] },
  { name: 'typecheck', budget: 75, commands: [['npx', '--no-install', 'tsc', '-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', TYPECHECK_INFO], ['npx', '--no-install', 'tsc', '-p', 'web/tsconfig.json']] },
  { name: 'vitest', budget: 480, commands: [vitest('--exclude', 'test/browser/**')], report: 'vitest' },
  { name: 'watchdog', budget: 90, commands: [vitest('--config', 'vitest.watchdog.config.ts')], report: 'watchdog' },
  // Two browsers at a time (94 s with one, 64 s with two on 2 cores; a third only adds contention).
  { name: 'browser', budget: 90, commands: [vitest('test/browser', '--maxWorkers=2')], report: 'browser', env: { TEST_TIMING_NAME: 'browser' } },
  { name: 'agents', budget: 75, commands: [['node', 'scripts/test-agents.mjs']], report: 'agents' },
];

const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** Runs one stage's commands; returns whether all succeeded. Prints its time, and a warning past its budget. */
function runStage({ name, budget, commands, report, env }) {
  const started = Date.now();
  let ok = true;
  for (const step of commands) {
    if (!Array.isArray(step) && step.skip()) {
      console.log(`[stage] ${name}: ${step.command.join(' ')} skipped, its output is newer than its inputs`);
      continue;
    }
    const [command, ...args] = Array.isArray(step) ? step : step.command;
    const { status, error } = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    if (error || status !== 0) {
      ok = false;
      break;
    }
  }
  const ms = Date.now() - started;
  mkdirSync(timingDir, { recursive: true });
  appendFileSync(stagesFile, `${name}\t${ms}\t${budget}\t${ok ? 'ok' : 'failed'}\n`);
  console.log(`\n[stage] ${name}: ${seconds(ms)} (budget ${budget} s)${ok ? '' : ', FAILED'}`);
  if (ms > budget * 1000) console.log(`[stage] WARNING: ${name} took ${seconds(ms)}, over its ${budget} s budget${slowestFiles(report)}`);
  return ok;
}

/** `; slowest files: a (12 s), b (9 s), ...` from the stage's timing report, when it wrote one. */
function slowestFiles(report) {
  const path = report && join(timingDir, `${report}.json`);
  if (!path || !existsSync(path)) return '';
  const { files } = JSON.parse(readFileSync(path, 'utf8'));
  const top = [...files].sort((a, b) => b.ms - a.ms).slice(0, 5);
  return `; slowest files: ${top.map((f) => `${f.file} (${seconds(f.ms)})`).join(', ')} (node scripts/test-timing.mjs for more)`;
}

function printSummary() {
  if (!existsSync(stagesFile)) return;
  const rows = readFileSync(stagesFile, 'utf8').trim().split('\n').map((line) => line.split('\t'));
  const total = rows.reduce((sum, [, ms]) => sum + Number(ms), 0);
  console.log('\n[stage] wall time per stage:');
  for (const [name, ms, budget, state] of rows) {
    const over = Number(ms) > Number(budget) * 1000 ? `  over its ${budget} s budget` : '';
    console.log(`[stage]   ${name.padEnd(12)} ${seconds(Number(ms)).padStart(7)}${state === 'ok' ? '' : '  FAILED'}${over}`);
  }
  console.log(`[stage]   ${'total'.padEnd(12)} ${seconds(total).padStart(7)}`);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { stage: { type: 'string' }, budget: { type: 'string' }, report: { type: 'string' }, summary: { type: 'boolean' } },
});
if (values.summary) {
  printSummary();
} else if (values.stage) {
  process.exitCode = runStage({ name: values.stage, budget: Number(values.budget ?? 60), commands: [positionals], report: values.report }) ? 0 : 1;
} else {
  // Under .ci/run the installs were timed before: keep their lines.
  if (!process.env.CI_STAGES_KEEP) rmSync(stagesFile, { force: true });
  for (const stage of NPM_TEST) {
    if (!runStage(stage)) {
      process.exitCode = 1;
      break;
    }
  }
  if (!process.env.CI_STAGES_KEEP) printSummary();
}
