/**
 * What each channel's recent upstream attempts looked like, for the console's channel page
 * (issue 12): error rate and latency percentiles over the last minutes, and the last error. A
 * ring of the last attempts per channel, written with three array stores per attempt; the
 * figures are worked out only when someone asks. Per instance: each instance sees its own traffic.
 */
const RING = 1024;
export const HEALTH_WINDOW_MS = 5 * 60_000;

export interface ChannelError {
  at: number;
  status: number | null;
  message: string;
  /** The upstream's own text (issue 35), redacted of the channel's credentials. */
  vendor_message: string | null;
}

export interface ChannelHealthFigures {
  requests: number;
  errors: number;
  /** Null without attempts in the window. */
  error_rate: number | null;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  last_error: ChannelError | null;
}

class Ring {
  readonly at = new Float64Array(RING);
  readonly ms = new Float64Array(RING);
  readonly failed = new Uint8Array(RING);
  next = 0;
  size = 0;
  lastError: ChannelError | null = null;
}

export class ChannelHealth {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly now: () => number = Date.now) {}

  /** An attempt that got an answer the channel is not to blame for (a success, or the client's own 4xx). */
  succeeded(channel: string, latencyMs: number): void {
    this.push(channel, latencyMs, 0);
  }

  failed(channel: string, latencyMs: number, status: number | undefined, message: string, vendorMessage?: string): void {
    const ring = this.push(channel, latencyMs, 1);
    ring.lastError = { at: this.now(), status: status ?? null, message, vendor_message: vendorMessage ?? null };
  }

  private push(channel: string, latencyMs: number, failed: 0 | 1): Ring {
    let ring = this.rings.get(channel);
    if (!ring) this.rings.set(channel, (ring = new Ring()));
    const at = ring.next;
    ring.at[at] = this.now();
    ring.ms[at] = latencyMs;
    ring.failed[at] = failed;
    ring.next = (at + 1) % RING;
    if (ring.size < RING) ring.size++;
    return ring;
  }

  figures(channel: string): ChannelHealthFigures {
    const ring = this.rings.get(channel);
    if (!ring) return { requests: 0, errors: 0, error_rate: null, latency_p50_ms: null, latency_p99_ms: null, last_error: null };
    const since = this.now() - HEALTH_WINDOW_MS;
    const latencies: number[] = [];
    let errors = 0;
    for (let i = 0; i < ring.size; i++) {
      if (ring.at[i]! < since) continue;
      latencies.push(ring.ms[i]!);
      errors += ring.failed[i]!;
    }
    latencies.sort((a, b) => a - b);
    const requests = latencies.length;
    return {
      requests,
      errors,
      error_rate: requests === 0 ? null : errors / requests,
      latency_p50_ms: percentile(latencies, 0.5),
      latency_p99_ms: percentile(latencies, 0.99),
      last_error: ring.lastError,
    };
  }
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!);
}
