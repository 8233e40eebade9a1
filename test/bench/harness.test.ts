import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'bench-harness-'));

afterAll(() => rmSync(out, { recursive: true, force: true }));

/**
 * The one benchmark CI runs (issue 5): the shortest scenario, to prove the harness still starts
 * the upstream and the gateway, loads both and writes its report. Nothing here asserts on time.
 */
describe('benchmark harness (issue 5)', () => {
  it('npm run bench -- --quick measures idle RSS, then direct and ours, and writes the JSON, markdown and chart', async () => {
    await run(process.execPath, ['bench/run.js', '--quick', '--no-portkey', '--no-build', '--out', out], { cwd: root, timeout: 60_000 });
    const [json] = readdirSync(out).filter((name) => name.endsWith('.json'));
    const report = JSON.parse(readFileSync(join(out, json!), 'utf8'));
    const chat = report.scenarios.find((s: { name: string }) => s.name === 'chat');
    const byTarget = Object.fromEntries(chat.results.map((r: { target: string }) => [r.target, r]));
    for (const target of ['direct', 'ours']) {
      expect(byTarget[target].responses).toBeGreaterThan(0);
      expect(byTarget[target].errors).toBe(0);
      expect(byTarget[target].cpuUsPerRequest).toBeGreaterThan(0);
      expect(byTarget[target].peakRssBytes).toBeGreaterThan(0);
    }
    expect(report.options.loader).toBe('autocannon');
    // Idle memory (issue 24): the embedded-defaults gateway left alone, its RSS sampled each second.
    expect(report.idle.samplesMb).toHaveLength(report.idle.settleS);
    expect(report.idle.afterStartMb).toBeGreaterThan(0);
    expect(report.targets.map((t: { name: string }) => t.name)).toContain(`RSS idle, embedded defaults, ${report.idle.settleS} s after start (issue 24)`);
    expect(report.targets.map((t: { name: string }) => t.name)).toContain('chat c64 throughput vs direct');
    // Issue 24's table is always printed; a --quick run measures none of it (no Portkey, no c1/c256).
    const tail = report.targets.find((t: { name: string }) => t.name === 'p99 ÷ p50 at c256, chat');
    expect(tail).toMatchObject({ limit: '≤ 3×', value: null, pass: null });
    expect(readFileSync(join(out, json!.replace(/json$/, 'md')), 'utf8')).toContain('| c | req/s direct | req/s ours |');
    expect(readFileSync(join(out, 'chart.svg'), 'utf8')).toMatch(/^<svg/);
  }, 90_000);

  it('npm run bench -- --long-streams prints the long-stream table and the issue 36 goals, direct beside ours (issue 36)', async () => {
    const longOut = join(out, 'long');
    await run(process.execPath, ['bench/run.js', '--long-streams', '20', '--stream-seconds', '1', '--plateau-seconds', '1', '--no-build', '--out', longOut], { cwd: root, timeout: 60_000 });
    const [json] = readdirSync(longOut).filter((name) => name.endsWith('-long-streams.json'));
    const report = JSON.parse(readFileSync(join(longOut, json!), 'utf8'));
    const [level] = report.levels;
    expect(level.streams).toBe(20);
    for (const target of ['direct', 'ours']) {
      expect(level[target].completed).toBeGreaterThan(0);
      expect(level[target].failed).toBe(0);
      expect(level[target].ttftMs.count).toBeGreaterThan(0);
      expect(level[target].idleRssMb).toBeGreaterThan(0);
    }
    expect(report.targets.map((t: { name: string }) => t.name)).toEqual([
      'gateway RSS with 10,000 concurrent streams (projected)',
      'added TTFT p99 at 20 concurrent streams (ours − direct)',
    ]);
    const markdown = readFileSync(join(longOut, json!.replace(/json$/, 'md')), 'utf8');
    expect(markdown).toContain('## Goals (issue 36)');
    expect(markdown).toContain('| streams | target | open at plateau | TTFT p50 / p99 ms | added TTFT p50 / p99 ms |');
    expect(markdown).toMatch(/^\| 20 \| ours \|/m);
  }, 90_000);
});
