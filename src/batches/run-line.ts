import type { FastifyInstance } from 'fastify';
import { requestAsBatchLine, type BatchLineReport } from '../plugins/batch-line-mark.js';
import type { BatchLineRow } from './batch-repo.js';
import type { BatchRow, OutputLine } from './batch.js';

export type LineRun =
  /** The endpoint answered: the line ends with this outcome (any status but a rate limit's). */
  | { kind: 'answered'; ok: boolean; outcome: OutputLine; report: BatchLineReport | undefined }
  /** The key's rpm/tpm is used up: the line waits this long and runs again. */
  | { kind: 'rate-limited'; waitMs: number }
  /** The gateway is closing and refused it: the line runs at the next start. */
  | { kind: 'not-run' };

/**
 * Runs one line through the gateway's own endpoint as the batch's key (`app.inject`, marked as a
 * batch line: plugins/batch-line-mark.ts), so the key's models, limits, budget, routing, usage
 * and request log apply exactly as to a client's request, billed at the batch price. The line's
 * `batch_req_…` id is the request's x-request-id: the request log finds it by that id.
 */
export async function runLine(app: FastifyInstance, batch: BatchRow, line: BatchLineRow): Promise<LineRun> {
  const mark: { batchId: string; report?: BatchLineReport } = { batchId: batch.id };
  const answer = await app.inject({
    method: 'POST',
    url: batch.endpoint,
    headers: { 'content-type': 'application/json', 'user-agent': 'gateway-batch', 'x-request-id': line.request_id },
    payload: line.body,
    Request: requestAsBatchLine(batch.key_id, mark),
  });
  const body = parsed(answer.body);
  if (answer.statusCode === 429 && errorCodeOf(body) !== 'insufficient_quota') return { kind: 'rate-limited', waitMs: retryAfterMs(answer.headers['retry-after']) };
  // A closing app answers 503 to what it has not started, before any hook (so without the
  // x-request-id every answer of the gateway carries): not the line's fault.
  if (answer.statusCode === 503 && answer.headers['x-request-id'] === undefined) return { kind: 'not-run' };
  const ok = answer.statusCode >= 200 && answer.statusCode < 300;
  return {
    kind: 'answered',
    ok,
    outcome: { id: line.request_id, custom_id: line.custom_id, response: { status_code: answer.statusCode, request_id: line.request_id, body }, error: null },
    report: mark.report,
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const errorCodeOf = (body: unknown): unknown => (body as { error?: { code?: unknown } } | null)?.error?.code;

function retryAfterMs(header: string | string[] | number | undefined): number {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
}
