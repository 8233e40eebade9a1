// The long-stream table (issue 36): per stream count, direct and through the gateway side by
// side, then the issue's goals with pass/fail, as report.js does for issue 24's table.

const GIB_MB = 1024;
const GOAL_STREAMS = 10_000;
const fmt = (n, digits = 1) => (n === null || n === undefined ? '–' : Number(n).toFixed(digits));

/**
 * The goals: 10,000 concurrent streams on one instance under 1 GiB RSS (measured at 10,000, or
 * projected from the largest count measured: idle + 10,000 × RSS per open stream) and added time
 * to first token p99 under 10 ms (at every count measured).
 */
export function checkLongStreamTargets(levels) {
  const checks = [];
  const add = (name, value, limit, pass, unit, detail) => checks.push({ name, value, limit, unit, pass: value === null ? null : pass, detail });
  const at10k = levels.find((l) => l.streams === GOAL_STREAMS);
  const largest = levels.at(-1);
  if (at10k) {
    const rss = at10k.ours.plateauRssMb;
    add(`gateway RSS with ${GOAL_STREAMS.toLocaleString('en')} concurrent streams`, rss, '< 1 GiB', rss < GIB_MB, ' MB', `idle ${at10k.ours.idleRssMb} MB`);
  } else {
    const perStream = largest?.ours.rssPerStreamKiB;
    const projected = perStream === null || perStream === undefined ? null : Math.round(largest.ours.idleRssMb + (GOAL_STREAMS * perStream) / 1024);
    add(
      `gateway RSS with ${GOAL_STREAMS.toLocaleString('en')} concurrent streams (projected)`,
      projected,
      '< 1 GiB',
      projected < GIB_MB,
      ' MB',
      largest ? `idle ${largest.ours.idleRssMb} MB + 10,000 × ${perStream} KiB, per-stream figure at ${largest.streams.toLocaleString('en')} streams` : 'no level measured',
    );
  }
  for (const level of levels.length ? levels : [{ streams: GOAL_STREAMS, addedTtftMs: { p99: null } }]) {
    const added = level.addedTtftMs.p99;
    const detail = level.ours ? `ours ${level.ours.ttftMs.p99} ms, direct ${level.direct.ttftMs.p99} ms` : 'not measured';
    add(`added TTFT p99 at ${level.streams.toLocaleString('en')} concurrent streams (ours − direct)`, added, '< 10 ms', added < 10, ' ms', detail);
  }
  return checks;
}

/** Where the processes ran: pinned apart on a many-core machine, or sharing a small one. */
function placement(options) {
  const pin = options.pin;
  if (!pin) return 'load client, fake upstream and gateway share the machine';
  return `fake upstream (${options.upstreamProcesses ?? 1} processes) on CPUs ${pin.upstream}, load client (${options.clientProcesses ?? 1} processes) on ${pin.client}, one gateway process on ${pin.gateway}`;
}

export function longStreamsMarkdown(run) {
  const { options } = run;
  const lines = [
    `# Long streams ${run.date}`,
    '',
    `\`${run.command}\``,
    '',
    `${run.machine.cpus} × ${run.machine.cpuModel}, Node ${run.machine.node}; ${placement(options)} ` +
      `(1-minute load average ${run.machine.loadAverageAtStart} before the run). Each stream: a token every ${options.intervalMs} ms for ` +
      `${options.streamS} s; streams arrive at count ÷ ${options.streamS} per second for ${options.streamS + options.plateauS} s, so the open count levels ` +
      `off at the count after ${options.streamS} s and holds for ${options.plateauS} s (the plateau). Open files: soft ${run.openFiles.soft}, hard ${run.openFiles.hard}.`,
    '',
    '## Goals (issue 36)',
    '',
    '| goal | measured | limit | pass | from |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const t of run.targets) {
    lines.push(`| ${t.name} | ${t.value === null ? '–' : t.value + t.unit} | ${t.limit} | ${t.pass === null ? 'not measured' : t.pass ? 'yes' : '**no**'} | ${t.detail ?? ''} |`);
  }
  lines.push(
    '',
    '## Long-stream table',
    '',
    '| streams | target | open at plateau | TTFT p50 / p99 ms | added TTFT p50 / p99 ms | RSS idle → plateau MB | RSS per open stream KiB | CPU µs per stream-second (cores) | /healthz p50 / p99 / max ms | complete / failed | other work, cores |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const level of run.levels) {
    for (const [target, r] of [['direct', level.direct], ['ours', level.ours]]) {
      const added = target === 'ours' ? `${fmt(level.addedTtftMs.p50, 2)} / ${fmt(level.addedTtftMs.p99, 2)}` : '';
      lines.push(
        `| ${level.streams.toLocaleString('en')} | ${target} | ${r.meanOpenStreams} | ${fmt(r.ttftMs.p50, 2)} / ${fmt(r.ttftMs.p99, 2)} | ${added} | ` +
          `${fmt(r.idleRssMb)} → ${fmt(r.plateauRssMb)} | ${fmt(r.rssPerStreamKiB, 2)} | ${fmt(r.cpuUsPerStreamSecond)} (${fmt(r.coresAtPlateau, 2)}) | ` +
          `${fmt(r.healthzMs.p50, 2)} / ${fmt(r.healthzMs.p99, 2)} / ${fmt(r.healthzMs.max)} | ${r.completed} / ${r.incomplete + r.failed} | ${fmt(r.otherCoresAtPlateau, 2)} |`,
      );
    }
  }
  for (const s of run.skipped) lines.push('', `Not measured: ${s.streams.toLocaleString('en')} streams: ${s.reason}.`);
  lines.push(
    '',
    'direct: the load client straight to the fake upstream (its figures are the upstream process\'s); ours: through one gateway process (its figures are the gateway\'s).',
    'TTFT: request sent to first body byte, over the streams that arrived during the plateau; added TTFT is ours minus direct, same percentile.',
    'RSS per open stream: (median RSS over the plateau − RSS idle after a 20-stream warm-up) ÷ mean open streams. CPU per stream-second: the process\'s',
    'utime + stime over the plateau ÷ the open-stream seconds in it. /healthz: latency of a probe every 20 ms from the bench process during the plateau (event-loop delay seen from outside).',
    'Other work: machine busy time (/proc/stat) during the plateau not spent by the server, the upstream or the load client (the bench itself, other users): where it',
    'approaches the core count, the processes measured were starved of CPU and their latencies say more about the machine than about them.',
    '',
  );
  return lines.join('\n');
}
