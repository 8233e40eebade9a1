import type { GatewayConfig } from '../config/schema.js';

export interface BatchSettings {
  linesInFlight: number;
  tickMs: number;
  leaseMs: number;
  retryWaitMaxMs: number;
  /** What `completion_window: "24h"` stands for. */
  windowMs: number;
}

/** The `batches` settings of the configuration file, defaults filled in (issue 46). */
export function batchSettingsOf(config: GatewayConfig): BatchSettings {
  const file = config.file.batches ?? {};
  return {
    linesInFlight: file.lines_in_flight ?? 8,
    tickMs: file.tick_ms ?? 1_000,
    leaseMs: file.lease_ms ?? 30_000,
    retryWaitMaxMs: file.retry_wait_max_ms ?? 60_000,
    windowMs: (file.completion_window_s ?? 86_400) * 1000,
  };
}
