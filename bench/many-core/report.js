// The many-core run's Markdown: the workers table per key (as in issue 36), then what each
// gateway process and its busiest threads did at the largest worker count.

const fmt = (n) => (n === undefined || Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US'));
const ms = (n) => (n === undefined ? '–' : n < 10 ? n.toFixed(2) : Math.round(n).toString());
const share = (n) => (n === undefined ? '–' : n.toFixed(2));

function workersTable(results, key) {
  const workers = [...new Set(results.runs.filter((r) => r.key === key).map((r) => r.workers))];
  if (workers.length === 0) return '';
  const run = (w, scenario) => results.runs.find((r) => r.workers === w && r.key === key && r.scenario === scenario);
  const base = (scenario) => run(workers[0], scenario)?.rps;
  const workerCpus = (r) => {
    const cpus = r?.procs.processes.filter((p) => p.role === 'worker').map((p) => p.cpu) ?? [];
    return cpus.length ? `${share(Math.min(...cpus))}–${share(Math.max(...cpus))}` : '–';
  };
  const rows = [
    ['non-stream req/s', (w) => fmt(run(w, 'chat')?.rps)],
    [`× ${workers[0]} worker(s)`, (w) => share(run(w, 'chat')?.rps / base('chat'))],
    ['20-event streams/s', (w) => fmt(run(w, 'stream20')?.rps)],
    [`× ${workers[0]} worker(s), streams`, (w) => share(run(w, 'stream20')?.rps / base('stream20'))],
    ['p50 / p99 non-stream (ms)', (w) => `${ms(run(w, 'chat')?.p50Ms)} / ${ms(run(w, 'chat')?.p99Ms)}`],
    ['p50 / p99 streams (ms)', (w) => `${ms(run(w, 'stream20')?.p50Ms)} / ${ms(run(w, 'stream20')?.p99Ms)}`],
    ['errors (non-2xx + socket), chat / streams', (w) => `${errors(run(w, 'chat'))} / ${errors(run(w, 'stream20'))}`],
    ['RSS, all processes (MiB)', (w) => fmt(run(w, 'chat')?.rssMiB)],
    ['PSS / RssAnon, all processes (MiB)', (w) => `${fmt(run(w, 'chat')?.procs.pssMiB)} / ${fmt(run(w, 'chat')?.procs.anonMiB)}`],
    ['gateway CPU per request (µs), chat / streams', (w) => `${fmt(run(w, 'chat')?.cpuPerRequestUs)} / ${fmt(run(w, 'stream20')?.cpuPerRequestUs)}`],
    ['primary CPU (cores), chat / streams', (w) => `${share(primaryOf(run(w, 'chat'))?.cpu)} / ${share(primaryOf(run(w, 'stream20'))?.cpu)}`],
    ['each worker CPU (cores), chat', (w) => workerCpus(run(w, 'chat'))],
    ['run-queue wait, all threads (cores), chat', (w) => share(sumOf(run(w, 'chat'), 'runQueueWait'))],
    // Where the load generator's p99 was spent: the gateway's own time (parsed request to finish),
    // the wait from accept to a connection's first request, the loop's and GC's worst moments, the kernel.
    ['gateway\'s own p50 / p99 / max (ms), chat', (w) => side(run(w, 'chat'), 'handled')],
    ['accept → first request p99 / max (ms), chat', (w) => side(run(w, 'chat'), 'firstWait', ['p99Ms', 'maxMs'])],
    ['longest event-loop delay / GC pause (ms), chat', (w) => { const g = run(w, 'chat')?.gatewaySide; return g ? `${ms(g.loopDelayMaxMs)} / ${ms(g.gcMaxMs)}` : '–'; }],
    ['TCP counters that moved, chat', (w) => tcpMoved(run(w, 'chat'))],
  ];
  const header = `| ${key} key | ${workers.map((w) => `${w}`).join(' | ')} |\n|---|${workers.map(() => '---').join('|')}|\n`;
  return `### ${key === 'bootstrap' ? 'Bootstrap key (no limits)' : 'Key with rpm/tpm limits (never refused)'}\n\n${header}${rows.map(([name, cell]) => `| ${name} | ${workers.map(cell).join(' | ')} |`).join('\n')}\n`;
}

const side = (run, part, fields = ['p50Ms', 'p99Ms', 'maxMs']) => {
  const figures = run?.gatewaySide?.[part];
  return figures ? fields.map((f) => ms(figures[f])).join(' / ') : '–';
};
const tcpMoved = (run) => {
  if (!run?.tcp) return '–';
  const moved = Object.entries(run.tcp);
  return moved.length ? moved.map(([name, n]) => `${name} ${n}`).join(', ') : 'none';
};
const primaryOf = (run) => run?.procs.processes.find((p) => p.role === 'primary');
const sumOf = (run, field) => run?.procs.processes.reduce((sum, p) => sum + p[field], 0);
const errors = (run) => (run ? Object.values(run.errors).reduce((a, b) => a + b, 0) : '–');

function processTable(run) {
  const lines = run.procs.processes.map((p) =>
    `| ${p.role} ${p.pid} | ${share(p.cpu)} | ${share(p.runQueueWait)} | ${fmt(p.ctxVoluntaryPerS)} / ${fmt(p.ctxInvoluntaryPerS)} | ${p.sockets} | ${fmt(p.rssMiB)} / ${fmt(p.pssMiB)} / ${fmt(p.anonMiB)} | ${p.threads.filter((t) => t.cpu >= 0.01).map((t) => `${t.comm} ${share(t.cpu)}`).join(', ')} |`,
  );
  const states = Object.entries(run.mainThreadStates ?? {}).map(([name, part]) => `${name} ${(part * 100).toFixed(1)}%`).join(', ');
  return `#### ${run.workers} workers, ${run.key} key, ${run.scenario}: ${fmt(run.rps)} req/s\n\nWorkers' main threads, sampled every 5 ms: ${states}\n\n| process | CPU (cores) | run-queue wait (cores) | ctx switches/s vol / invol | sockets | RSS / PSS / anon MiB | busiest threads (cores) |\n|---|---|---|---|---|---|---|\n${lines.join('\n')}\n`;
}

/** Issue 36's goals for the workers, each with its figure and pass/fail (compared within this one run). */
function goals(results) {
  const run = (w, key, scenario) => results.runs.find((r) => r.workers === w && r.key === key && r.scenario === scenario);
  const counts = [...new Set(results.runs.map((r) => r.workers))].sort((a, b) => a - b);
  const [fewest, most] = [counts[0], counts.at(-1)];
  if (fewest === undefined || fewest === most) return '';
  const lines = [];
  const verdict = (ok) => (ok ? 'pass' : 'FAIL');
  for (const scenario of ['chat', 'stream20']) {
    const ratio = run(most, 'bootstrap', scenario)?.rps / run(fewest, 'bootstrap', scenario)?.rps;
    // 6.5 of 8 (81%) of linear scaling, as issue 36 asks of 8 workers over one.
    const goal = (6.5 / 8) * (most / fewest);
    lines.push(`| ${most} workers ÷ ${fewest}, ${scenario === 'chat' ? 'non-stream' : 'streams'} (bootstrap key) | ≥ ${share(goal)}× | ${share(ratio)}× | ${verdict(ratio >= goal)} |`);
  }
  const rss = (w) => run(w, 'bootstrap', 'chat')?.rssMiB;
  const perWorker = (rss(most) - rss(fewest)) / (most - fewest);
  lines.push(`| RSS per extra worker (MiB, under load) | ≤ 60 | ${fmt(perWorker)} | ${verdict(perWorker <= 60)} |`);
  // RSS counts the node binary's shared file pages once per process; PSS and RssAnon do not.
  const pages = (w, field) => run(w, 'bootstrap', 'chat')?.procs[field];
  lines.push(`| PSS / RssAnon per extra worker (MiB, under load) | ≤ 60 | ${fmt((pages(most, 'pssMiB') - pages(fewest, 'pssMiB')) / (most - fewest))} / ${fmt((pages(most, 'anonMiB') - pages(fewest, 'anonMiB')) / (most - fewest))} | ${verdict((pages(most, 'pssMiB') - pages(fewest, 'pssMiB')) / (most - fewest) <= 60)} |`);
  const limited = run(most, 'limited', 'chat');
  if (limited) {
    const ratio = limited.rps / run(most, 'bootstrap', 'chat')?.rps;
    lines.push(`| limited ÷ bootstrap key at ${most} workers, non-stream | ≥ 0.90 | ${share(ratio)} (primary CPU ${share(primaryOf(limited)?.cpu)} cores) | ${verdict(ratio >= 0.9)} |`);
  }
  return `### Goals (issue 36)\n\n| goal | wanted | measured | |\n|---|---|---|---|\n${lines.join('\n')}\n`;
}

export function renderMarkdown(results) {
  const s = results.settings;
  const most = Math.max(...results.runs.map((r) => r.workers));
  const detail = results.runs.filter((r) => r.workers === most || r.workers === 4);
  return [
    `## Many cores: GATEWAY_WORKERS ${s.workers.join(', ')}`,
    '',
    `${results.cpus} CPUs (threads per core: ${results.layout.threadsPerCore ?? '?'}); upstream (${s.upstreamProcesses} processes) on CPUs ${results.layout.groups[0]}, wrk -t${s.wrkThreads} on ${results.layout.groups[1]}, gateway on ${results.layout.groups[2]}; c${s.connections}, ${s.durationS} s per run after a ${s.warmupS} s warm-up; Node ${results.node}; embedded SQLite, LOG_LEVEL=warn.`,
    '',
    `Direct ceiling (wrk straight to the upstream): ${fmt(results.direct.chat?.rps)} req/s non-stream (p99 ${ms(results.direct.chat?.p99Ms)} ms; TCP counters that moved: ${tcpMoved(results.direct.chat)}), ${fmt(results.direct.stream20?.rps)} streams/s (p99 ${ms(results.direct.stream20?.p99Ms)} ms).`,
    '',
    goals(results),
    workersTable(results, 'bootstrap'),
    workersTable(results, 'limited'),
    results.elapsedS === undefined ? '' : `The whole run took ${fmt(results.elapsedS)} s.\n`,
    `### What each gateway process did at 4 and ${most} workers`,
    '',
    ...detail.map(processTable),
  ].join('\n');
}
