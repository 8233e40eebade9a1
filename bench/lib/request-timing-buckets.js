// Histogram buckets of bench/lib/request-timing.mjs: 0.1 ms up to 60 s, about 10% apart.
const RATIO = 1.1;
const FIRST_MS = 0.1;

/** The bucket a duration falls in (its upper edge is `upperEdgeMs(bucket)`). */
export function bucketOf(ms) {
  return ms <= FIRST_MS ? 0 : Math.ceil(Math.log(ms / FIRST_MS) / Math.log(RATIO));
}

export function upperEdgeMs(bucket) {
  return FIRST_MS * RATIO ** bucket;
}
