import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../errors.js';
import { isGoogleMethodPath, isGoogleStyleRequest } from './google-style.js';

/**
 * The error envelopes of the spec's endpoint families (spec "Error body shapes"), plus the
 * Kling-native envelope that the /videoalt routes speak and Anthropic's, for /v1/messages in its
 * Anthropic-native mode. Which one a request gets depends only on its path (and, for /v1/messages,
 * its `anthropic-version` header), so 404s and body-parse errors get the same envelope as handled errors.
 */
export type EnvelopeKind = 'general' | 'chat' | 'google' | 'kling' | 'anthropic' | 'openai';

/** Anthropic's token counting: Anthropic clients only, whatever their headers. */
const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

export function envelopeForPath(url: string): EnvelopeKind {
  if (url.startsWith('/v1beta/') || url === '/v1beta' || isGoogleMethodPath(url)) return 'google';
  if (url.startsWith('/videoalt/')) return 'kling';
  if (url.startsWith(COUNT_TOKENS_PATH)) return 'anthropic';
  if (url.startsWith('/v1/chat/completions') || url.startsWith('/v1/messages')) return 'chat';
  // OpenAI's full envelope, `param` included: embedding clients name the field they got wrong from it.
  if (url.startsWith('/v1/embeddings') || url.startsWith('/v1/rerank')) return 'openai';
  return 'general';
}

/**
 * As envelopeForPath, plus Anthropic's envelope for /v1/messages requests that carry
 * `anthropic-version` (docs/decisions.md "Two modes of /v1/messages"), and the Google envelope for
 * Google-style calls of `/v1/models` (google-style.ts).
 */
export function envelopeForRequest(url: string, headers: IncomingHttpHeaders): EnvelopeKind {
  const kind = envelopeForPath(url);
  if (kind === 'chat' && headers['anthropic-version'] !== undefined && url.startsWith('/v1/messages')) return 'anthropic';
  return kind === 'general' && url.startsWith('/v1/models') && isGoogleStyleRequest(url, headers) ? 'google' : kind;
}

/**
 * Anthropic's error types by status (anthropic.md "Errors"). A spent budget is `billing_error`
 * (still 429, as every family answers it); 503 reads as `overloaded_error`, Anthropic's "back off".
 */
function anthropicErrorType(error: GatewayError): string {
  if (error.code === 'GW_QUOTA_EXCEEDED') return 'billing_error';
  switch (error.status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return error.status < 500 ? 'invalid_request_error' : 'api_error';
  }
}

/** Kling's numeric business codes by HTTP status (protocols/kling.md, "Error codes"). */
const KLING_CODE_BY_STATUS: Record<number, number> = {
  400: 1200, 401: 1000, 403: 1103, 404: 1203, 413: 1200, 429: 1302, 500: 5000, 502: 5000, 503: 5001, 504: 5002,
};

export function renderError(kind: EnvelopeKind, error: GatewayError, requestId?: string): unknown {
  switch (kind) {
    case 'anthropic':
      return { type: 'error', error: { type: anthropicErrorType(error), message: error.message }, request_id: requestId ?? null };
    case 'general':
      return { error: { message: error.message, type: error.kind.type, code: error.kind.publicCode } };
    case 'openai':
      return { error: { message: error.message, type: error.kind.type, param: error.param ?? null, code: error.kind.publicCode } };
    case 'chat':
      return { error: { code: error.kind.publicCode, message: error.message } };
    case 'google':
      return { error: { code: error.status, message: error.message, status: error.kind.grpcStatus } };
    case 'kling':
      return { code: error.vendorCode ?? KLING_CODE_BY_STATUS[error.status] ?? 5000, message: error.message, request_id: randomUUID() };
  }
}
