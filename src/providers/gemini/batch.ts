/**
 * Gemini batch mode with inline requests, as pure translators (issue 46).
 *   POST /v1beta/models/{model}:batchGenerateContent  {batch:{displayName, inputConfig:{requests:{requests:[{request, metadata:{key}}]}}}}
 *   GET  /v1beta/batches/{id}                          an Operation: metadata.state, metadata.output.inlinedResponses
 *   POST /v1beta/batches/{id}:cancel
 *   https://ai.google.dev/gemini-api/docs/batch-mode (js-genai src/batches.ts for the field names)
 * Inline requests total under 20 MB; larger batches would need an uploaded JSONL file (not done here).
 */
import type { BatchAdapter, UpstreamBatchResult, UpstreamBatchStatus } from '../../contracts/batch-adapter.js';
import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';
import { GEMINI_API_VERSION } from './endpoint.js';

/** The model of a line's sync call (`/v1beta/models/{model}:generateContent`). */
const GENERATE_PATH = /^\/v1beta\/models\/([^/:]+):generateContent$/;

const RUNNING = new Set(['BATCH_STATE_PENDING', 'BATCH_STATE_RUNNING', 'JOB_STATE_PENDING', 'JOB_STATE_RUNNING', 'JOB_STATE_QUEUED']);
const ENDED = new Set(['BATCH_STATE_SUCCEEDED', 'BATCH_STATE_FAILED', 'BATCH_STATE_CANCELLED', 'BATCH_STATE_EXPIRED', 'JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED']);

/** google.rpc.Code of a failed inline request → the HTTP status the request alone gets (AIP-193). */
const HTTP_STATUS_BY_RPC_CODE: Readonly<Record<number, number>> = { 3: 400, 9: 400, 11: 400, 16: 401, 7: 403, 5: 404, 6: 409, 10: 409, 8: 429, 1: 499, 4: 504, 13: 500, 2: 500, 15: 500, 12: 501, 14: 503 };

const batchPath = (upstreamId: string): string => `/${GEMINI_API_VERSION}/batches/${encodeURIComponent(upstreamId)}`;

/** The batch's fields: in the Operation's `metadata` (and `response` once done), or at the top level. */
function batchOf(res: unknown): { state?: unknown; output?: { inlinedResponses?: { inlinedResponses?: unknown[] }; responsesFile?: unknown } } | undefined {
  const operation = res as { metadata?: unknown; response?: unknown; state?: unknown } | null;
  if (!operation || typeof operation !== 'object') return undefined;
  const metadata = operation.metadata as { state?: unknown; output?: unknown } | undefined;
  const response = operation.response as { state?: unknown; output?: unknown } | undefined;
  return { ...operation, ...metadata, ...(response?.output ? { output: response.output } : {}) } as ReturnType<typeof batchOf>;
}

export const geminiBatch: BatchAdapter = {
  endpoints: ['/v1/chat/completions'],
  // "Batch Mode is priced at 50% of the standard interactive API cost" (batch mode guide).
  discount: 0.5,
  // The model is in the create call's path.
  oneModelPerBatch: true,
  nativeByDefault: () => true,

  toCreateRequest(_endpoint, requests) {
    const model = GENERATE_PATH.exec(requests[0]?.call.path ?? '')?.[1];
    if (model === undefined) throw new GatewayError('GW_INTERNAL', 'A Gemini batch line must be a generateContent call');
    return {
      method: 'POST',
      path: `/${GEMINI_API_VERSION}/models/${model}:batchGenerateContent`,
      body: {
        batch: {
          displayName: 'gateway-batch',
          inputConfig: { requests: { requests: requests.map(({ customId, call }) => ({ request: call.body, metadata: { key: customId } })) } },
        },
      },
    };
  },

  fromCreateResponse(res) {
    const name = (res as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || !name.startsWith('batches/')) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream batch create returned no batch name');
    return { upstreamId: name.slice('batches/'.length) };
  },

  toPollRequest: (upstreamId) => ({ method: 'GET', path: batchPath(upstreamId) }),

  fromPollResponse(res): UpstreamBatchStatus {
    const batch = batchOf(res);
    const state = batch?.state;
    if (typeof state === 'string' && RUNNING.has(state)) return { state: 'running' };
    if (typeof state !== 'string' || !ENDED.has(state)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream batch query returned an unknown state');
    const inline = batch!.output?.inlinedResponses?.inlinedResponses ?? [];
    const failure = state.endsWith('_FAILED') && inline.length === 0 ? 'The upstream batch failed' : undefined;
    return { state: 'ended', downloads: [], inline, failure };
  },

  fromResultLine(line): UpstreamBatchResult {
    const entry = line as { response?: unknown; error?: { code?: unknown; message?: unknown; status?: unknown }; metadata?: { key?: unknown } } | null;
    const customId = entry?.metadata?.key;
    if (typeof customId !== 'string') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'An upstream batch response has no metadata.key');
    if (entry!.response !== undefined) return { customId, status: 200, body: entry!.response };
    const error = entry!.error;
    if (!error) return { customId, failure: { code: 'failed', message: 'The upstream could not run this request' } };
    const status = typeof error.code === 'number' ? (HTTP_STATUS_BY_RPC_CODE[error.code] ?? 500) : 500;
    // The body the request alone would have been answered with (Google's error envelope).
    return { customId, status, body: { error: { code: status, message: error.message, status: error.status } } };
  },

  toCancelRequest: (upstreamId) => ({ method: 'POST', path: `${batchPath(upstreamId)}:cancel` }),

  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};
