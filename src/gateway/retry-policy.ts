/**
 * When to try an upstream again. Exponential backoff with full jitter (so retrying clients do not
 * stampede together), and an upstream's Retry-After wins when it asks for longer. A wait longer
 * than `maxWaitMs` is not worth holding the client for: the next channel is tried instead.
 */
export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 200, maxDelayMs: 5_000, maxWaitMs: 10_000 };

/** Upstream statuses that are worth another try (issue 3): overload, rate limit, server faults. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504, 529]);

/** Milliseconds to wait before retry number `attempt` (1-based), or undefined to move on. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number | undefined {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.round(random() * backoff);
  const asked = retryAfterSeconds === undefined ? 0 : retryAfterSeconds * 1000;
  const delay = Math.max(jittered, asked);
  return delay > policy.maxWaitMs ? undefined : delay;
}

/** Parses Retry-After (seconds or an HTTP date) into seconds. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
