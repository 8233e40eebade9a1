/**
 * OpenAI's Batch API (and any OpenAI-compatible server that offers it), as pure translators
 * (issue 46). Paths are relative to the channel's base URL, which carries `/v1`.
 *   POST /files (multipart, purpose=batch)   https://platform.openai.com/docs/api-reference/files/create
 *   POST /batches                            https://platform.openai.com/docs/api-reference/batch/create
 *   GET  /batches/{id}                       https://platform.openai.com/docs/api-reference/batch/retrieve
 *   GET  /files/{id}/content                 output and error files: JSONL of result lines
 *   POST /batches/{id}/cancel
 */
import type { BatchAdapter, UpstreamBatchRequest, UpstreamBatchResult, UpstreamBatchStatus } from '../../contracts/batch-adapter.js';
import type { BatchEndpoint } from '../../contracts/batch-line.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';

/**
 * JSON text never holds a raw CR or LF, so `\r\n--` + this boundary cannot occur inside a JSONL
 * part: a fixed boundary keeps the translator pure.
 */
const BOUNDARY = 'gateway-batch-input-7f3c1a';

/** OpenAI's batch statuses: which are over. */
const ENDED: Readonly<Record<string, boolean>> = {
  validating: false,
  in_progress: false,
  finalizing: false,
  cancelling: false,
  completed: true,
  failed: true,
  expired: true,
  cancelled: true,
};

export interface OpenAIBatchQuirks {
  /** A channel that does not set `batch`: whether its base URL offers /batches. */
  nativeByDefault(baseUrl: string | undefined): boolean;
  /** Where /files and /batches live under the base URL (Azure: `/openai`); none for OpenAI. */
  apiPrefix?: string;
  /** The `url` of an input line and the batch's `endpoint`, from the line's sync call path; `/v1` + the path for OpenAI. */
  lineUrl?(callPath: string): string;
  /** The batch endpoints the server runs; all three for OpenAI. */
  endpoints?: readonly BatchEndpoint[];
}

const openAILineUrl = (callPath: string): string => `/v1${callPath}`;

/**
 * The upstream endpoint of the lines: where their sync calls go (`/v1` + the call's path), not
 * necessarily the client's (a channel that serves Responses over chat batches chat completions,
 * whose answers its translator turns back into responses). One per batch, as OpenAI requires.
 */
export function upstreamBatchEndpoint(endpoint: BatchEndpoint, requests: readonly UpstreamBatchRequest[], lineUrl = openAILineUrl): string {
  const paths = new Set(requests.map(({ call }) => lineUrl(call.path)));
  if (paths.size > 1) throw new GatewayError('GW_REQ_INVALID_PARAM', 'The lines of one upstream batch must all go to one endpoint');
  return paths.values().next().value ?? endpoint;
}

/** The JSONL input file: one `{custom_id, method, url, body}` per line, `url` the batch's endpoint. */
export function openAIBatchInput(endpoint: BatchEndpoint, requests: readonly UpstreamBatchRequest[], lineUrl = openAILineUrl): string {
  const url = upstreamBatchEndpoint(endpoint, requests, lineUrl);
  return requests.map(({ customId, call }) => JSON.stringify({ custom_id: customId, method: 'POST', url, body: call.body })).join('\n') + '\n';
}

export function openAIBatchAdapter(quirks: OpenAIBatchQuirks): BatchAdapter {
  const prefix = quirks.apiPrefix ?? '';
  const lineUrl = quirks.lineUrl ?? openAILineUrl;
  return {
    endpoints: quirks.endpoints ?? ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'],
    discount: 0.5,
    // "Each batch can only include requests to a single model" (batch guide).
    oneModelPerBatch: true,
    nativeByDefault: quirks.nativeByDefault,

    toUploadRequest(endpoint, requests): UpstreamCall {
      const body =
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="batch.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n` +
        openAIBatchInput(endpoint, requests, lineUrl) +
        `\r\n--${BOUNDARY}--\r\n`;
      return { method: 'POST', path: `${prefix}/files`, headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body };
    },

    fromUploadResponse(res) {
      const id = (res as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || id === '') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream file upload returned no file id');
      return { fileId: id };
    },

    toCreateRequest(endpoint, requests, uploaded) {
      if (!uploaded) throw new GatewayError('GW_INTERNAL', 'An OpenAI batch needs its input file uploaded first');
      return { method: 'POST', path: `${prefix}/batches`, body: { input_file_id: uploaded.fileId, endpoint: upstreamBatchEndpoint(endpoint, requests, lineUrl), completion_window: '24h' } };
    },

    fromCreateResponse(res) {
      const id = (res as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || id === '') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream batch create returned no batch id');
      return { upstreamId: id };
    },

    toPollRequest: (upstreamId) => ({ method: 'GET', path: `${prefix}/batches/${encodeURIComponent(upstreamId)}` }),

    fromPollResponse(res): UpstreamBatchStatus {
      const batch = res as { status?: unknown; output_file_id?: unknown; error_file_id?: unknown; errors?: { data?: { message?: unknown }[] } } | null;
      const status = batch?.status;
      if (typeof status !== 'string' || !(status in ENDED)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream batch query returned an unknown status');
      if (!ENDED[status]) return { state: 'running' };
      const downloads = [batch!.output_file_id, batch!.error_file_id]
        .filter((id): id is string => typeof id === 'string' && id !== '')
        .map((id): UpstreamCall => ({ method: 'GET', path: `${prefix}/files/${encodeURIComponent(id)}/content` }));
      const firstError = batch!.errors?.data?.[0]?.message;
      const failure = status === 'failed' ? (typeof firstError === 'string' ? firstError : 'The upstream batch failed') : undefined;
      return { state: 'ended', downloads, inline: [], failure };
    },

    fromResultLine(line): UpstreamBatchResult {
      const entry = line as { custom_id?: unknown; response?: { status_code?: unknown; body?: unknown } | null; error?: { code?: unknown; message?: unknown } | null } | null;
      const customId = entry?.custom_id;
      if (typeof customId !== 'string') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'An upstream batch result line has no custom_id');
      const response = entry!.response;
      if (response && typeof response.status_code === 'number') return { customId, status: response.status_code, body: response.body };
      const code = entry!.error?.code;
      // Unfinished lines of an expired or cancelled batch come back in the error file with these codes.
      const failure = code === 'batch_expired' ? 'expired' : code === 'batch_cancelled' ? 'cancelled' : 'failed';
      return { customId, failure: { code: failure, message: failureMessage[failure] } };
    },

    toCancelRequest: (upstreamId) => ({ method: 'POST', path: `${prefix}/batches/${encodeURIComponent(upstreamId)}/cancel` }),

    fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
  };
}

const failureMessage = {
  expired: 'The batch expired before this request ran',
  cancelled: 'The batch was cancelled before this request ran',
  failed: 'The upstream could not run this request',
} as const;
