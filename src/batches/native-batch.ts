import type { Channel } from '../gateway/channel.js';
import type { BatchEndpoint, BatchLine, BatchLineOutcome } from '../contracts/batch-line.js';

/**
 * THE SEAM for vendors' own batch APIs (issue 46 item 3a). A channel whose vendor sells batches
 * (OpenAI-compatible `/v1/batches`, Anthropic Message Batches, Gemini batch mode) gets its lines
 * of a batch as ONE upstream batch through this executor; the batch runner
 * (batches/native-lines.ts) stores the upstream id on each line before polling it (so a restart
 * polls it again), and bills each outcome at the model's batch price (NATIVE_BATCH_DISCOUNT
 * unless the price sets `batch_discount`) through the same billing code as every line
 * (batches/bill-native-line.ts). Every line of a batch routed elsewhere runs through the gateway's
 * own endpoint (batches/run-line.ts).
 */
export interface NativeBatchExecutor {
  /** Creates the upstream batch of `lines` (bodies in `endpoint`'s protocol, the channel's upstream model names not yet applied). */
  submit(channel: Channel, endpoint: BatchEndpoint, lines: readonly BatchLine[], signal: AbortSignal): Promise<{ upstreamId: string }>;
  poll(channel: Channel, upstreamId: string, signal: AbortSignal): Promise<{ state: 'running' | 'ended' }>;
  /** Each line's outcome, by custom_id, once `poll` said `ended`; a line left out ends as an error. */
  results(channel: Channel, upstreamId: string, endpoint: BatchEndpoint, signal: AbortSignal): AsyncIterable<BatchLineOutcome>;
  cancel(channel: Channel, upstreamId: string, signal: AbortSignal): Promise<void>;
}

/**
 * The executor for a channel's vendor batch API, or undefined: the gateway runs that channel's
 * lines itself. PLACEHOLDER until the native adapters land: no channel has one yet.
 */
export function nativeBatchFor(_channel: Channel): NativeBatchExecutor | undefined {
  return undefined;
}
