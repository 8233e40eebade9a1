/**
 * Anthropic Message Batches as pure translators (issue 46).
 *   POST /v1/messages/batches              {requests:[{custom_id, params}]}
 *   GET  /v1/messages/batches/{id}         processing_status: in_progress | canceling | ended
 *   GET  /v1/messages/batches/{id}/results JSONL of {custom_id, result}
 *   POST /v1/messages/batches/{id}/cancel
 *   https://docs.anthropic.com/en/api/creating-message-batches
 * The results are read from the batch's own path rather than the `results_url` it names, so the
 * call stays on the channel's base URL (and its guards) whatever host the answer names.
 */
import type { BatchAdapter, UpstreamBatchResult, UpstreamBatchStatus } from '../../contracts/batch-adapter.js';
import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';
import type { AnthropicErrorType } from './wire.js';

const BATCHES_PATH = '/v1/messages/batches';

/**
 * Anthropic takes custom_ids of `^[a-zA-Z0-9_-]{1,64}$`; OpenAI's batch input takes any string. An
 * id outside that set (or one starting with the marker) goes upstream as the marker and its UTF-8
 * in base64url, which the results decode: reversible with no state, so a restart loses nothing.
 */
const SAFE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const ENCODED = 'x-';
const MAX_ID_LENGTH = 64;

export function toAnthropicCustomId(customId: string): string {
  return SAFE_ID.test(customId) && !customId.startsWith(ENCODED) ? customId : ENCODED + Buffer.from(customId, 'utf8').toString('base64url');
}

export function fromAnthropicCustomId(upstreamId: string): string {
  return upstreamId.startsWith(ENCODED) ? Buffer.from(upstreamId.slice(ENCODED.length), 'base64url').toString('utf8') : upstreamId;
}

const batchPath = (upstreamId: string): string => `${BATCHES_PATH}/${encodeURIComponent(upstreamId)}`;

/** The HTTP status each error type answers with when the same request is sent alone (anthropic.md "Errors"). */
const STATUS_BY_ERROR_TYPE = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
} satisfies Record<AnthropicErrorType, number>;

export const anthropicBatch: BatchAdapter = {
  endpoints: ['/v1/chat/completions'],
  // "All usage is charged at 50% of the standard API prices" (batch processing guide).
  discount: 0.5,
  oneModelPerBatch: false,
  nativeByDefault: () => true,

  customIdProblem: (customId) =>
    toAnthropicCustomId(customId).length > MAX_ID_LENGTH ? `custom_id '${customId.slice(0, 80)}' is too long for this model's batches: Anthropic takes 64 characters of A-Z, a-z, 0-9, _ and - (or about 46 bytes of others)` : undefined,

  toCreateRequest(_endpoint, requests) {
    // A batch carries no per-request headers: the lines' own (`anthropic-beta` flags) go on the create call.
    const headers = Object.assign({}, ...requests.map(({ call }) => call.headers ?? {})) as Record<string, string>;
    return {
      method: 'POST',
      path: BATCHES_PATH,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      body: { requests: requests.map(({ customId, call }) => ({ custom_id: toAnthropicCustomId(customId), params: call.body })) },
    };
  },

  fromCreateResponse(res) {
    const id = (res as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream batch create returned no batch id');
    return { upstreamId: id };
  },

  toPollRequest: (upstreamId) => ({ method: 'GET', path: batchPath(upstreamId) }),

  fromPollResponse(res, upstreamId): UpstreamBatchStatus {
    const status = (res as { processing_status?: unknown } | null)?.processing_status;
    if (status === 'in_progress' || status === 'canceling') return { state: 'running' };
    if (status !== 'ended') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream batch query returned an unknown processing_status');
    return { state: 'ended', downloads: [{ method: 'GET', path: `${batchPath(upstreamId)}/results` }], inline: [] };
  },

  fromResultLine(line): UpstreamBatchResult {
    const entry = line as { custom_id?: unknown; result?: { type?: unknown; message?: unknown; error?: unknown } } | null;
    const result = entry?.result;
    if (typeof entry?.custom_id !== 'string' || !result) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'An upstream batch result line has no custom_id or result');
    const customId = fromAnthropicCustomId(entry.custom_id);
    switch (result.type) {
      case 'succeeded':
        return { customId, status: 200, body: result.message };
      case 'errored': {
        // `error` is the body the request alone would have been answered with: {type:"error", error:{type, message}}.
        const type = (result.error as { error?: { type?: unknown } } | undefined)?.error?.type;
        const status = typeof type === 'string' && type in STATUS_BY_ERROR_TYPE ? STATUS_BY_ERROR_TYPE[type as AnthropicErrorType] : 500;
        return { customId, status, body: result.error };
      }
      case 'canceled':
        return { customId, failure: { code: 'cancelled', message: 'The batch was cancelled before this request ran' } };
      case 'expired':
        return { customId, failure: { code: 'expired', message: 'The batch expired before this request ran' } };
      default:
        throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'An upstream batch result line has an unknown result type');
    }
  },

  toCancelRequest: (upstreamId) => ({ method: 'POST', path: `${batchPath(upstreamId)}/cancel` }),

  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};
