// One autocannon run with exact latencies: autocannon's own histogram keeps whole
// milliseconds, too coarse for a sub-millisecond added-latency target, so every 2xx response
// time (hrtime, fractional ms) is recorded here as well. `--loader wrk` uses load-wrk.js instead.
import autocannon from 'autocannon';
import { runWrk } from './load-wrk.js';

/** Runs one load with the chosen loader ('autocannon', the default, or 'wrk'). */
export function runLoadWith(loader, options) {
  return loader === 'wrk' ? runWrk(options) : runLoad(options);
}

/**
 * @param {{url: string, method?: string, headers?: Record<string,string>, body?: string,
 *          connections: number, durationS: number}} options
 */
export async function runLoad({ url, method = 'POST', headers = {}, body, connections, durationS }) {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let responses = 0;
  let non2xx = 0;
  const statuses = {};
  const startedAt = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  const instance = autocannon({
    url,
    method,
    headers,
    body,
    connections,
    duration: durationS,
    timeout: 30,
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    responses++;
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    if (statusCode < 200 || statusCode >= 300) {
      non2xx++;
      return;
    }
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const cpu = process.cpuUsage(cpuBefore);
  const elapsedS = Number(process.hrtime.bigint() - startedAt) / 1e9;
  const sorted = latencies.subarray(0, count).sort();
  const pct = (p) => (count === 0 ? null : round(sorted[Math.min(count - 1, Math.ceil((p / 100) * count) - 1)]));
  return {
    connections,
    durationS: round(elapsedS),
    responses,
    rps: round(count / elapsedS),
    latencyMs: { p50: pct(50), p90: pct(90), p99: pct(99), max: count === 0 ? null : round(sorted[count - 1]) },
    errors: result.errors + result.timeouts + non2xx,
    statuses,
    transportErrors: result.errors,
    timeouts: result.timeouts,
    // autocannon runs in this process: its CPU is this process's.
    loadGeneratorCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

function round(n) {
  return Math.round(n * 1000) / 1000;
}

/** Sends one request and returns status and text, to check a target answers as expected. */
export async function probe({ url, method = 'POST', headers = {}, body }) {
  const response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, text: await response.text() };
}
