// Results as JSON and a markdown table, with the issue's targets checked against them.

const MB = 1024 * 1024;

/** The measurement of one target at one concurrency, or undefined. */
const find = (scenario, target, connections) =>
  scenario?.results.find((r) => r.target === target && r.connections === connections);

const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null);

const rounded = (n, digits = 2) => (n === null || n === undefined ? null : Math.round(n * 10 ** digits) / 10 ** digits);

/**
 * The targets, checked against one run (2 cores shared by load generator, upstream and
 * gateway). Issue 24's table comes first; the earlier issues' targets follow.
 */
export function checkTargets(scenarios, idle) {
  const byName = Object.fromEntries(scenarios.map((s) => [s.name, s]));
  const checks = [];
  const add = (name, value, limit, pass, unit = '', detail = undefined) => {
    const measured = value === null || value === undefined || Number.isNaN(value) ? null : value;
    checks.push({ name, value: measured, limit, unit, pass: measured === null ? null : pass, ...(detail ? { detail } : {}) });
  };
  // Issue 24: CPU per request at c64, ours against Portkey's on the same run (the rate-limited key's hot path).
  for (const [scenario, label] of [['auth-limited', 'CPU per request, c64 non-stream (rate-limited key): Portkey ÷ ours'], ['auth-stream-20', 'CPU per 20-event stream, c64 (rate-limited key): Portkey ÷ ours']]) {
    const ours = find(byName[scenario], 'ours', 64)?.cpuUsPerRequest;
    const portkey = find(byName[scenario], 'portkey', 64)?.cpuUsPerRequest;
    const times = ratio(portkey, ours);
    add(label, times, '≥ 10×', times >= 10, '×', ours !== undefined ? `ours ${ours} µs, Portkey ${portkey ?? '–'} µs` : undefined);
  }
  for (const name of ['chat', 'stream']) {
    const ours = find(byName[name], 'ours', 1)?.latencyMs.p50;
    const direct = find(byName[name], 'direct', 1)?.latencyMs.p50;
    const added = ours !== undefined && direct !== undefined ? rounded(ours - direct, 3) : null;
    add(`added p50 at c1, ${name} (ours − direct)`, added, '≤ 0.1 ms', added <= 0.1, ' ms', ours !== undefined ? `ours ${ours} ms, direct ${direct} ms` : undefined);
  }
  for (const name of ['chat', 'auth-limited']) {
    const at256 = find(byName[name], 'ours', 256);
    const tail = at256 ? rounded(at256.latencyMs.p99 / at256.latencyMs.p50, 2) : null;
    add(`p99 ÷ p50 at c256, ${name}`, tail, '≤ 3×', tail <= 3, '×', at256 ? `p99 ${at256.latencyMs.p99} ms, p50 ${at256.latencyMs.p50} ms` : undefined);
  }
  for (const name of ['auth-stream-20', 'stream']) {
    const c64 = find(byName[name], 'ours', 64)?.cpuUsPerRequest;
    const c256 = find(byName[name], 'ours', 256)?.cpuUsPerRequest;
    const growth = ratio(c256, c64);
    add(`CPU per stream at c256 ÷ c64, ${name}`, growth, '≤ 1.2×', growth <= 1.2, '×', c64 !== undefined ? `${c256 ?? '–'} vs ${c64} µs` : undefined);
  }
  const loaded = scenarios.flatMap((s) => s.results.filter((r) => r.target === 'ours' && r.connections <= 256).map((r) => ({ rss: r.peakRssBytes, at: `${s.name} c${r.connections}` })));
  const peak = loaded.reduce((max, r) => (r.rss > (max?.rss ?? 0) ? r : max), undefined);
  const peakMb = peak ? rounded(peak.rss / MB, 1) : null;
  add('peak RSS under load (max over scenarios, c ≤ 256)', peakMb, '≤ 100 MB', peakMb <= 100, ' MB', peak ? peak.at : undefined);
  if (idle) add(`RSS idle, embedded defaults, ${idle.settleS} s after start (issue 24)`, idle.settledMb, '≤ 64 MB', idle.settledMb <= 64, ' MB');
  // Earlier issues' targets.
  for (const name of ['chat', 'stream']) {
    const vsDirect = ratio(find(byName[name], 'ours', 64)?.rps, find(byName[name], 'direct', 64)?.rps);
    add(`${name} c64 throughput vs direct`, vsDirect, '≥ 0.45', vsDirect >= 0.45, '×');
  }
  const slow = find(byName['slow-streams'], 'ours', 1000);
  const rssSlow = slow ? rounded(slow.peakRssBytes / MB, 1) : null;
  add('peak RSS, 1,000 concurrent slow streams', rssSlow, '< 200 MB', rssSlow < 200, ' MB');
  return checks;
}

const fmt = (n, digits = 0) => (n === null || n === undefined ? '–' : Number(n).toFixed(digits));

/** One table per scenario: a row per concurrency, columns direct / ours / Portkey. */
export function markdown(run) {
  const lines = [`# Benchmark ${run.date}`, '', `\`${run.command}\``, '', machineLine(run), ''];
  if (run.idle) {
    lines.push(`Idle (embedded defaults, fresh data directory, no request but the readiness probe): RSS ${run.idle.afterStartMb} MB 5 s after start, ${run.idle.settledMb} MB after ${run.idle.settleS} s.`, '');
  }
  lines.push('## Targets', '', '| target | measured | goal | pass | from |', '| --- | --- | --- | --- | --- |');
  for (const t of run.targets) {
    lines.push(`| ${t.name} | ${t.value === null ? '–' : t.value + t.unit} | ${t.limit} | ${t.pass === null ? 'not measured' : t.pass ? 'yes' : '**no**'} | ${t.detail ?? ''} |`);
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
