/** How many refusals of one key per minute reach the ledger and the request log (issue 34). */
export const RECORDED_REFUSALS_PER_MINUTE = 20;
const MINUTE_MS = 60_000;
/** Past this many keys in one minute the counts start again (a bound on memory, not on a key). */
const MAX_KEYS = 10_000;

export type RefusalVerdict = 'record' | 'skip' | 'skip-first';

/**
 * Refusals cost nothing durable (issue 34): a key that floods the gateway with requests it
 * refuses before any upstream work (unknown models, invalid bodies, its own limits) gets its
 * first refusals of each minute recorded like any request, the rest only counted in metrics.
 * `skip-first` marks the first one left out, for a log line per key and minute.
 */
export class RefusalSampler {
  private readonly minutes = new Map<string, { startedAt: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  verdict(keyId: string): RefusalVerdict {
    const now = this.now();
    let minute = this.minutes.get(keyId);
    if (!minute || now - minute.startedAt >= MINUTE_MS) {
      if (!minute && this.minutes.size >= MAX_KEYS) this.minutes.clear();
      minute = { startedAt: now, count: 0 };
      this.minutes.set(keyId, minute);
    }
    minute.count += 1;
    if (minute.count <= RECORDED_REFUSALS_PER_MINUTE) return 'record';
    return minute.count === RECORDED_REFUSALS_PER_MINUTE + 1 ? 'skip-first' : 'skip';
  }
}
