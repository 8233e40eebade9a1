import { answerLines, batchDelayOf, batchEnded, cancelledBeforeEnd, type SimBatch, type SimBatchLine } from '../../simulator/batch-store.js';
import { simOrigin } from '../../simulator/async-task.js';
import type { SimErrorBody, SimHandler, SimRequest, SimResponse } from '../../simulator/server.js';
import { ANTHROPIC_MESSAGES_PATH } from './endpoint.js';

/**
 * Anthropic Message Batches in the simulator (issue 46; batch.ts lists the routes): a batch runs
 * `batch_delay_ms`, then ends with a result line per request, each answered by the simulator's
 * own /v1/messages route.
 */
const BATCHES_PATH = '/v1/messages/batches';
const BATCH_PATH = /^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/;
/** Anthropic's documented custom_id pattern. */
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export function anthropicBatchesSimHandler(errorBody: SimErrorBody, answer: SimHandler): SimHandler {
  return async (req, res) => {
    if (req.method === 'POST' && req.path === BATCHES_PATH) return createBatch(errorBody, answer, req, res);
    const match = BATCH_PATH.exec(req.path);
    if (!match) return false;
    const batch = req.batches.batch(match[1]!);
    if (!batch || !batch.id.startsWith('msgbatch_')) {
      res.json(404, errorBody(404, `No message batch ${match[1]}`));
      return true;
    }
    if (req.method === 'GET' && match[2] === undefined) res.json(200, batchObject(req, batch));
    else if (req.method === 'POST' && match[2] === '/cancel') {
      if (!batchEnded(batch, Date.now())) batch.cancelledAt = Date.now();
      res.json(200, batchObject(req, batch));
    } else if (req.method === 'GET' && match[2] === '/results') {
      if (!batchEnded(batch, Date.now())) res.json(400, errorBody(400, 'The batch is still processing: results are available once it has ended'));
      else res.bytes(200, Buffer.from(resultLines(batch).join('\n') + '\n', 'utf8'), 'application/binary');
    } else return false;
    return true;
  };
}

async function createBatch(errorBody: SimErrorBody, answer: SimHandler, req: SimRequest, res: SimResponse): Promise<true> {
  const requests = (req.body as { requests?: unknown } | undefined)?.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    res.json(400, errorBody(400, 'requests: a non-empty list is required'));
    return true;
  }
  const lines: SimBatchLine[] = [];
  const seen = new Set<string>();
  for (const [index, request] of requests.entries()) {
    const { custom_id: customId, params } = (request ?? {}) as { custom_id?: unknown; params?: unknown };
    if (typeof customId !== 'string' || !CUSTOM_ID.test(customId) || seen.has(customId)) {
      res.json(400, errorBody(400, `requests.${index}.custom_id: must match ^[a-zA-Z0-9_-]{1,64}$ and be unique`));
      return true;
    }
    if (!params || typeof params !== 'object' || (params as { stream?: unknown }).stream === true) {
      res.json(400, errorBody(400, `requests.${index}.params: a Messages request without stream is required`));
      return true;
    }
    seen.add(customId);
    lines.push({ customId, path: ANTHROPIC_MESSAGES_PATH, body: params });
  }
  const answers = await answerLines(answer, req, res, lines);
  const now = Date.now();
  const batch = req.batches.add({ createdAt: now, endsAt: now + batchDelayOf(res.options), lines, answers, meta: {} }, 'msgbatch_');
  res.json(200, batchObject(req, batch));
  return true;
}

function batchObject(req: SimRequest, batch: SimBatch): Record<string, unknown> {
  const ended = batchEnded(batch, Date.now());
  const stopped = cancelledBeforeEnd(batch);
  const succeeded = batch.answers.filter((answer) => answer.status < 400).length;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : batch.cancelledAt !== undefined ? 'canceling' : 'in_progress',
    // Every request counts as processing until the whole batch ends.
    request_counts: ended
      ? { processing: 0, succeeded: stopped ? 0 : succeeded, errored: stopped ? 0 : batch.answers.length - succeeded, canceled: stopped ? batch.answers.length : 0, expired: 0 }
      : { processing: batch.lines.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    ended_at: ended ? iso(batch.cancelledAt ?? batch.endsAt) : null,
    created_at: iso(batch.createdAt),
    expires_at: iso(batch.createdAt + 86_400_000),
    archived_at: null,
    cancel_initiated_at: batch.cancelledAt === undefined ? null : iso(batch.cancelledAt),
    results_url: ended ? `${simOrigin(req)}${BATCHES_PATH}/${batch.id}/results` : null,
  };
}

function resultLines(batch: SimBatch): string[] {
  const stopped = cancelledBeforeEnd(batch);
  return batch.answers.map(({ customId, status, body }) =>
    JSON.stringify({
      custom_id: customId,
      result: stopped ? { type: 'canceled' } : status < 400 ? { type: 'succeeded', message: body } : { type: 'errored', error: body },
    }),
  );
}
