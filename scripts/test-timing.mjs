#!/usr/bin/env node
// Where the suite's time goes (issue 45): ranks test files by their cost, from the reports that
// scripts/test-timing-reporter.mjs writes (test-artifacts/timing/*.json) or from vitest's own
// JSON reporter (`--reporter=json --outputFile=x.json`, whose figures leave out import and beforeAll).
//
//   node scripts/test-timing.mjs                          every report under test-artifacts/timing
//   node scripts/test-timing.mjs test-artifacts/timing/vitest.json --top 20
//   node scripts/test-timing.mjs x.json --tsv timing.tsv  also every file's figures, tab-separated
//   node scripts/test-timing.mjs test-artifacts/timing/vitest.json --durations test/file-durations.json
//                                                         the figures the suite's order reads (test/longest-first.ts)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const timingDir = join(root, 'test-artifacts', 'timing');

/** One report's files as { file, ms, tests, failed, importMs?, state }. */
export function readReport(path) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  if (Array.isArray(report.files)) return { name: report.name, wallMs: report.wallMs, files: report.files };
  if (Array.isArray(report.testResults)) {
    const files = report.testResults.map((result) => ({
      file: relative(root, result.name),
      ms: Math.max(0, result.endTime - result.startTime),
      tests: result.assertionResults.length,
      failed: result.assertionResults.filter((a) => a.status === 'failed').length,
      state: result.status,
    }));
    const ends = report.testResults.map((result) => result.endTime);
    return { name: 'vitest (JSON reporter)', wallMs: ends.length ? Math.max(...ends) - report.startTime : 0, files };
  }
  throw new Error(`${path}: neither a test-timing report nor vitest's JSON report`);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The text block: totals, then the `top` slowest files. */
export function describeReport({ name, wallMs, files }, top = 15) {
  const sorted = [...files].sort((a, b) => b.ms - a.ms);
  const sum = files.reduce((total, f) => total + f.ms, 0);
  const tests = files.reduce((total, f) => total + f.tests, 0);
  const lines = [`${name}: ${files.length} files, ${tests} tests, ${seconds(wallMs ?? 0)} wall, ${seconds(sum)} summed over files`];
  lines.push(`slowest ${Math.min(top, sorted.length)} (${(sorted.slice(0, top).reduce((t, f) => t + f.ms, 0) / Math.max(sum, 1) * 100).toFixed(0)}% of the summed time):`);
  for (const f of sorted.slice(0, top)) {
    const detail = f.importMs === undefined ? '' : `, import ${seconds(f.importMs)}`;
    lines.push(`  ${seconds(f.ms).padStart(8)}  ${f.file} (${f.tests} tests${detail}${f.failed ? `, ${f.failed} failed` : ''})`);
  }
  return lines.join('\n');
}

function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' }, tsv: { type: 'string' }, durations: { type: 'string' } } });
  const paths = positionals.length > 0 ? positionals : existsSync(timingDir) ? readdirSync(timingDir).filter((f) => f.endsWith('.json')).map((f) => join(timingDir, f)) : [];
  if (paths.length === 0) {
    console.log('no timing report: run vitest first (its configurations write test-artifacts/timing/<name>.json)');
    return;
  }
  const reports = paths.map(readReport);
  console.log(reports.map((report) => describeReport(report, Number(values.top))).join('\n\n'));
  if (values.tsv) {
    const rows = reports.flatMap((report) => report.files.map((f) => [report.name, f.file, f.ms, f.importMs ?? '', f.tests, f.failed].join('\t')));
    writeFileSync(values.tsv, `${['report', 'file', 'ms', 'import_ms', 'tests', 'failed'].join('\t')}\n${rows.join('\n')}\n`);
  }
  if (values.durations) {
    // Whole seconds, slowest first: a file's order in the next run needs no more, and the diff stays small.
    const files = reports.flatMap((report) => report.files).sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file));
    const durations = Object.fromEntries(files.map((f) => [f.file, Math.max(1, Math.round(f.ms / 1000))]));
    writeFileSync(values.durations, `${JSON.stringify(durations, null, 1)}\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
