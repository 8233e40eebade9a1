// One measurement of one target (load, the server's CPU, its peak RSS) and the median of several
// rounds: shared by the full run (run.js) and the floor comparison (floor-run.js).
import { cpuSeconds, machineBusySeconds, peakRss, resetPeakRss } from './procs.js';
import { runLoadWith } from './load.js';

/** Measures one target at one concurrency: load, the server's CPU and its peak RSS. */
export async function measure({ loader, target, request, servers, server, connections, durationS }) {
  resetPeakRss(server.pid);
  const ourCpu = () => Object.values(servers).reduce((sum, s) => sum + (s ? cpuSeconds(s.pid) : 0), 0);
  const upstream = servers.upstream;
  const before = { server: cpuSeconds(server.pid), upstream: cpuSeconds(upstream.pid), all: ourCpu(), machine: machineBusySeconds() };
  const result = await runLoadWith(loader, { ...request, connections, durationS });
  const serverCpu = cpuSeconds(server.pid) - before.server;
  const upstreamCpu = cpuSeconds(upstream.pid) - before.upstream;
  // Machine busy time not spent by the servers or the load generator: other work on the box.
  const otherCpu = machineBusySeconds() - before.machine - (ourCpu() - before.all) - result.loadGeneratorCpuSeconds;
  const n = Math.max(1, result.responses);
  return {
    target,
    ...result,
    otherCpuSeconds: round(Math.max(0, otherCpu), 2),
    cpuSeconds: round(serverCpu, 2),
    cpuSecondsPer1k: round((serverCpu / n) * 1000, 4),
    cpuUsPerRequest: round((serverCpu / n) * 1e6, 1),
    upstreamCpuUsPerRequest: round((upstreamCpu / n) * 1e6, 1),
    loadGeneratorCpuUsPerRequest: round((result.loadGeneratorCpuSeconds / n) * 1e6, 1),
    peakRssBytes: peakRss(server.pid),
  };
}

export const round = (n, digits) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * One target's rounds as one result: the round with the median throughput (its latencies stay
 * together), the median CPU per request, the highest peak RSS and every error; all rounds kept.
 */
export function medianRound(results) {
  if (results.length === 1) return results[0];
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const byRps = [...results].sort((a, b) => a.rps - b.rps);
  const cpuUs = median(results.map((r) => r.cpuUsPerRequest));
  return {
    ...byRps[Math.floor(results.length / 2)],
    cpuUsPerRequest: cpuUs,
    cpuSecondsPer1k: round(cpuUs / 1000, 4),
    peakRssBytes: Math.max(...results.map((r) => r.peakRssBytes)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    rounds: results.map(({ rps, cpuUsPerRequest, peakRssBytes, latencyMs, errors }) => ({ rps, cpuUsPerRequest, peakRssBytes, latencyMs, errors })),
  };
}
