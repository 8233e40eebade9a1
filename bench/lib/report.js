// Results as JSON and a markdown table, with the issue's targets checked against them.

const MB = 1024 * 1024;

/** The measurement of one target at one concurrency, or undefined. */
const find = (scenario, target, connections) =>
  scenario?.results.find((r) => r.target === target && r.connections === connections);

const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null);

/** The issue's targets (2 cores shared by load generator, upstream and gateway). */
export function checkTargets(scenarios, idle) {
  const byName = Object.fromEntries(scenarios.map((s) => [s.name, s]));
  const checks = [];
  const add = (name, value, limit, pass, unit = '') => {
    const measured = value === null || value === undefined ? null : value;
    checks.push({ name, value: measured, limit, unit, pass: measured === null ? null : pass });
  };
  for (const name of ['chat', 'stream']) {
    const ours = find(byName[name], 'ours', 64);
    const direct = find(byName[name], 'direct', 64);
    const portkey = find(byName[name], 'portkey', 64);
    const vsPortkey = ratio(ours?.rps, portkey?.rps);
    const vsDirect = ratio(ours?.rps, direct?.rps);
    add(`${name} c64 throughput vs Portkey`, vsPortkey, '≥ 8×', vsPortkey >= 8, '×');
    add(`${name} c64 throughput vs direct`, vsDirect, '≥ 0.45', vsDirect >= 0.45, '×');
  }
  const cpuNonStream = find(byName['auth-limited'], 'ours', 64)?.cpuUsPerRequest;
  add('CPU per request, c64 non-stream, authenticated key', cpuNonStream, '≤ 150 µs', cpuNonStream <= 150, ' µs');
  const cpuStream = find(byName['auth-stream-20'], 'ours', 64)?.cpuUsPerRequest;
  add('CPU per request, c64 20-chunk stream, authenticated key', cpuStream, '≤ 250 µs', cpuStream <= 250, ' µs');
  const c1Ours = find(byName.chat, 'ours', 1)?.latencyMs.p50;
  const c1Direct = find(byName.chat, 'direct', 1)?.latencyMs.p50;
  const added = c1Ours !== undefined && c1Direct !== undefined ? Math.round((c1Ours - c1Direct) * 1000) / 1000 : null;
  add('added latency at c1 (ours − direct, p50, chat)', added, '≤ 0.5 ms', added <= 0.5, ' ms');
  const c256 = scenarios.flatMap((s) => s.results.filter((r) => r.target === 'ours' && r.connections === 256).map((r) => r.peakRssBytes));
  const rss256 = c256.length ? Math.round((Math.max(...c256) / MB) * 10) / 10 : null;
  add('peak RSS at c256 (max over scenarios)', rss256, '< 120 MB', rss256 < 120, ' MB');
  const slow = find(byName['slow-streams'], 'ours', 1000);
  const rssSlow = slow ? Math.round((slow.peakRssBytes / MB) * 10) / 10 : null;
  add('peak RSS, 1,000 concurrent slow streams', rssSlow, '< 200 MB', rssSlow < 200, ' MB');
  if (idle) add(`RSS idle, embedded defaults, ${idle.settleS} s after start (issue 24)`, idle.settledMb, '≤ 64 MB', idle.settledMb <= 64, ' MB');
  return checks;
}

const fmt = (n, digits = 0) => (n === null || n === undefined ? '–' : Number(n).toFixed(digits));

/** One table per scenario: a row per concurrency, columns direct / ours / Portkey. */
export function markdown(run) {
  const lines = [`# Benchmark ${run.date}`, '', `\`${run.command}\``, '', machineLine(run), ''];
  if (run.idle) {
    lines.push(`Idle (embedded defaults, fresh data directory, no request but the readiness probe): RSS ${run.idle.afterStartMb} MB 5 s after start, ${run.idle.settledMb} MB after ${run.idle.settleS} s.`, '');
  }
  lines.push('## Targets', '', '| target | measured | limit | pass |', '| --- | --- | --- | --- |');
  for (const t of run.targets) {
    lines.push(`| ${t.name} | ${t.value === null ? '–' : t.value + t.unit} | ${t.limit} | ${t.pass === null ? 'not measured' : t.pass ? 'yes' : '**no**'} |`);
  }
  lines.push('');
  for (const scenario of run.scenarios) {
    lines.push(`## ${scenario.name}`, '', scenario.description, '');
    if (scenario.skipped?.length) lines.push(`Not measured: ${scenario.skipped.map((s) => `${s.target} (${s.reason})`).join('; ')}`, '');
    lines.push(
      '| c | req/s direct | req/s ours | req/s Portkey | ours/direct | ours/Portkey | p50 ms d / o / P | p90 ms d / o / P | p99 ms d / o / P | max ms d / o / P | errors d / o / P | CPU s/1k req o / P (upstream) | peak RSS MB o / P |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    const conns = [...new Set(scenario.results.map((r) => r.connections))];
    for (const c of conns) {
      const [d, o, p] = ['direct', 'ours', 'portkey'].map((t) => find(scenario, t, c));
      const three = (f, digits) => [d, o, p].map((r) => (r ? fmt(f(r), digits) : '–')).join(' / ');
      lines.push(
        `| ${c} | ${fmt(d?.rps)} | ${fmt(o?.rps)} | ${fmt(p?.rps)} | ${fmt(ratio(o?.rps, d?.rps), 2)} | ${fmt(ratio(o?.rps, p?.rps), 1)} | ` +
          `${three((r) => r.latencyMs.p50, 2)} | ${three((r) => r.latencyMs.p90, 2)} | ${three((r) => r.latencyMs.p99, 2)} | ${three((r) => r.latencyMs.max, 1)} | ` +
          `${three((r) => r.errors)} | ${o ? fmt(o.cpuSecondsPer1k, 3) : '–'} / ${p ? fmt(p.cpuSecondsPer1k, 3) : '–'} (${d ? fmt(d.cpuSecondsPer1k, 3) : '–'}) | ` +
          `${o ? fmt(o.peakRssBytes / MB, 1) : '–'} / ${p ? fmt(p.peakRssBytes / MB, 1) : '–'} |`,
      );
    }
    const other = Math.max(0, ...scenario.results.map((r) => r.otherCpuSeconds ?? 0));
    if (other > 0.5) lines.push('', `Other work on the machine took up to ${other} CPU s during one of these measurements: treat them as noisy.`);
    lines.push('');
  }
  lines.push(
    'CPU s/1k req: CPU seconds (user + system, from /proc) of the server process per 1,000 responses; in brackets the upstream simulator\'s own cost, measured on the direct run.',
    'Peak RSS: VmHWM of the server process during that measurement (reset before each).',
    '',
  );
  return lines.join('\n');
}

function machineLine(run) {
  const m = run.machine;
  const loader = run.options.loader ?? 'autocannon';
  return `${m.cpus} × ${m.cpuModel}, Node ${m.node}; load from ${loader}; ${run.options.durationS} s per measurement after a ${run.options.warmupS} s warm-up; load generator, upstream and gateways share the machine (1-minute load average ${m.loadAverageAtStart} before the run).`;
}
