import { answerLines, batchDelayOf, batchEnded, cancelledBeforeEnd, type SimBatch, type SimBatchLine } from '../../simulator/batch-store.js';
import type { SimHandler, SimRequest, SimResponse } from '../../simulator/server.js';

type GeminiErrorBody = (code: number, message: string) => unknown;

/**
 * Gemini batch mode with inline requests in the simulator (issue 46; batch.ts lists the routes):
 * a batch runs `batch_delay_ms`, then its Operation carries one inlined response per request,
 * each answered by the simulator's own generateContent route.
 */
const CREATE_PATH = /^\/v1beta\/models\/([^/:]+):batchGenerateContent$/;
const BATCH_PATH = /^\/v1beta\/batches\/([^/:]+)(:cancel)?$/;

export function geminiBatchesSimHandler(errorBody: GeminiErrorBody, answer: SimHandler): SimHandler {
  return async (req, res) => {
    const create = req.method === 'POST' ? CREATE_PATH.exec(req.path) : null;
    if (create) return createBatch(errorBody, answer, req, res, create[1]!);
    const match = BATCH_PATH.exec(req.path);
    if (!match) return false;
    const batch = req.batches.batch(match[1]!);
    if (!batch || batch.meta.vendor !== 'gemini') {
      res.json(404, errorBody(404, `Batch batches/${match[1]} not found.`));
      return true;
    }
    if (req.method === 'GET' && match[2] === undefined) res.json(200, operationOf(batch));
    else if (req.method === 'POST' && match[2] === ':cancel') {
      if (!batchEnded(batch, Date.now())) batch.cancelledAt = Date.now();
      res.json(200, {});
    } else return false;
    return true;
  };
}

async function createBatch(errorBody: GeminiErrorBody, answer: SimHandler, req: SimRequest, res: SimResponse, model: string): Promise<true> {
  const batch = (req.body as { batch?: { displayName?: unknown; inputConfig?: { requests?: { requests?: unknown } } } } | undefined)?.batch;
  const requests = batch?.inputConfig?.requests?.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    res.json(400, errorBody(400, 'batch.inputConfig.requests.requests must be a non-empty list'));
    return true;
  }
  const lines: SimBatchLine[] = requests.map((entry, index) => {
    const { request, metadata } = (entry ?? {}) as { request?: unknown; metadata?: { key?: unknown } };
    return { customId: typeof metadata?.key === 'string' ? metadata.key : String(index), path: `/v1beta/models/${model}:generateContent`, body: request };
  });
  const answers = await answerLines(answer, req, res, lines);
  const now = Date.now();
  const stored = req.batches.add({ createdAt: now, endsAt: now + batchDelayOf(res.options), lines, answers, meta: { vendor: 'gemini', model: decodeURIComponent(model), displayName: batch!.displayName ?? '' } }, 'sim');
  res.json(200, operationOf(stored));
  return true;
}

/** The Operation Google answers with: the batch's fields in `metadata`, `done` once it ended. */
function operationOf(batch: SimBatch): Record<string, unknown> {
  const ended = batchEnded(batch, Date.now());
  const stopped = cancelledBeforeEnd(batch);
  const state = !ended ? 'BATCH_STATE_RUNNING' : stopped ? 'BATCH_STATE_CANCELLED' : 'BATCH_STATE_SUCCEEDED';
  const inlined = batch.answers.map(({ customId, status, body }) =>
    status < 400 ? { response: body, metadata: { key: customId } } : { error: { code: RPC_CODE_BY_STATUS[status] ?? 13, message: (body as { error?: { message?: string } }).error?.message ?? 'failed' }, metadata: { key: customId } },
  );
  const iso = (ms: number) => new Date(ms).toISOString();
  const metadata = {
    '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
    model: `models/${String(batch.meta.model)}`,
    displayName: batch.meta.displayName,
    createTime: iso(batch.createdAt),
    updateTime: iso(ended ? (batch.cancelledAt ?? batch.endsAt) : batch.createdAt),
    ...(ended ? { endTime: iso(batch.cancelledAt ?? batch.endsAt) } : {}),
    batchStats: { requestCount: String(batch.lines.length), ...(ended && !stopped ? { successfulRequestCount: String(inlined.filter((entry) => 'response' in entry).length) } : { pendingRequestCount: String(batch.lines.length) }) },
    state,
    name: `batches/${batch.id}`,
    ...(ended && !stopped ? { output: { inlinedResponses: { inlinedResponses: inlined } } } : {}),
  };
  return { name: `batches/${batch.id}`, metadata, ...(ended ? { done: true } : {}) };
}

const RPC_CODE_BY_STATUS: Readonly<Record<number, number>> = { 400: 3, 401: 16, 403: 7, 404: 5, 429: 8, 500: 13, 503: 14, 504: 4 };
