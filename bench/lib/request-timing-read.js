// Merges what bench/lib/request-timing.mjs wrote in a time window, over every gateway process.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { upperEdgeMs } from './request-timing-buckets.js';

/** Percentile of a merged histogram, as its bucket's upper edge (within 10%). */
function percentile(histogram, p) {
  const buckets = Object.keys(histogram).map(Number).sort((a, b) => a - b);
  const total = buckets.reduce((sum, b) => sum + histogram[b], 0);
  if (total === 0) return undefined;
  let seen = 0;
  for (const bucket of buckets) {
    seen += histogram[bucket];
    if (seen >= p * total) return upperEdgeMs(bucket);
  }
  return upperEdgeMs(buckets.at(-1));
}

const merge = (into, histogram) => {
  for (const [bucket, n] of Object.entries(histogram)) into[bucket] = (into[bucket] ?? 0) + n;
};

/**
 * The gateway's side of a run from `fromMs` to `toMs` (epoch ms): p50/p99/max of the time from
 * parsed request to finish, the same of the accept-to-first-request wait, the longest event-loop
 * delay and GC pause of any process in any second of the window.
 */
export function readRequestTiming(dir, fromMs, toMs) {
  const handled = {};
  const firstWait = {};
  let loopDelayMaxMs = 0;
  let gcMaxMs = 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl'))) {
    for (const text of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (!text) continue;
      const line = JSON.parse(text);
      // A line covers the second before its time stamp: kept when that second overlaps the run
      // (the run's connections are accepted in its first moments).
      if (line.t <= fromMs || line.t - 1000 >= toMs) continue;
      merge(handled, line.handled);
      merge(firstWait, line.firstWait);
      loopDelayMaxMs = Math.max(loopDelayMaxMs, line.loopDelayMaxMs);
      gcMaxMs = Math.max(gcMaxMs, line.gcMaxMs);
    }
  }
  const summary = (histogram) => ({ p50Ms: percentile(histogram, 0.5), p99Ms: percentile(histogram, 0.99), maxMs: percentile(histogram, 1) });
  return { handled: summary(handled), firstWait: summary(firstWait), loopDelayMaxMs, gcMaxMs };
}
