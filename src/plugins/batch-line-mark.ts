import { ACTING_KEY } from './acting-key.js';
import { Readable } from 'node:stream';

/**
 * A line of a batch (issue 46) that the gateway runs through its own endpoint with `app.inject`:
 * the key it acts as (plugins/acting-key.ts) plus this mark, a Symbol no request from the network
 * can carry. The usage recorder bills a marked request at the model's batch price, writes the
 * batch id on its usage event, and leaves what it billed on `report` for the batch runner.
 */
export const BATCH_LINE: unique symbol = Symbol('gateway.batchLine');

export interface BatchLineMark {
  batchId: string;
  /** Filled by the usage recorder when the request's event is made (before the answer is sent). */
  report?: BatchLineReport;
}

export interface BatchLineReport {
  costUsd: number;
  channel: string | null;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

export function batchLineOf(raw: object): BatchLineMark | undefined {
  return (raw as { [BATCH_LINE]?: BatchLineMark })[BATCH_LINE];
}

/** A request class for `app.inject({ Request })` acting as `keyId` and marked as a line of a batch. */
export function requestAsBatchLine(keyId: string, mark: BatchLineMark): object {
  class BatchLineRequest extends Readable {}
  Object.defineProperty(BatchLineRequest.prototype, ACTING_KEY, { value: keyId });
  Object.defineProperty(BatchLineRequest.prototype, BATCH_LINE, { value: mark });
  return BatchLineRequest;
}
