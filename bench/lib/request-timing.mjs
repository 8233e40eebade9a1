// A preload (`node --import`) for bench runs that must say where a client's latency was spent.
// Each gateway process (primary and cluster workers; not worker threads) appends one JSON line a
// second to $GATEWAY_TIMING_DIR/<pid>.jsonl: a histogram of the time from the parsed request to
// the response's `finish` (the gateway's own share of what the load generator measured), of the
// wait from a connection's accept to its first parsed request, the event loop's longest delay and
// the longest GC pause of that second. bench/lib/request-timing-read.js merges the lines of a run.
import http from 'node:http';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { bucketOf } from './request-timing-buckets.js';

const dir = process.env.GATEWAY_TIMING_DIR;
if (dir && isMainThread) {
  const file = join(dir, `${process.pid}.jsonl`);
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  let handled = {};
  let firstWait = {};
  let gcMaxMs = 0;
  const count = (histogram, ms) => {
    const bucket = bucketOf(ms);
    histogram[bucket] = (histogram[bucket] ?? 0) + 1;
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, entry.duration);
  }).observe({ entryTypes: ['gc'] });
  const accepted = Symbol('acceptedAt');
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, a, b) {
    if (event === 'connection') a[accepted] = performance.now();
    else if (event === 'request') {
      const start = performance.now();
      const socket = a.socket;
      if (socket[accepted] !== undefined) {
        count(firstWait, start - socket[accepted]);
        socket[accepted] = undefined;
      }
      b.once('finish', () => count(handled, performance.now() - start));
    }
    return emit.apply(this, arguments);
  };
  setInterval(() => {
    const line = { t: Date.now(), handled, firstWait, loopDelayMaxMs: loopDelay.max / 1e6, gcMaxMs };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    handled = {};
    firstWait = {};
    gcMaxMs = 0;
    loopDelay.reset();
  }, 1000).unref();
}
