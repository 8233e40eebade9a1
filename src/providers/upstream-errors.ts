import { GatewayError, type ErrorCode } from '../errors.js';

/**
 * Maps an upstream HTTP status to what our client sees: the client's key was fine, so rejected
 * upstream credentials are a 502; upstream rate limits stay 429; timeouts are 504; overload 503.
 * `message` is the upstream's own explanation, already extracted by the vendor's translator.
 */
export function upstreamStatusError(status: number, message: string | undefined): GatewayError {
  if (status === 404) return new GatewayError('GW_UPSTREAM_ERROR', 'No upstream provider currently serves this model');
  const code = codeForStatus(status);
  // Only a rejected request carries the upstream's explanation (the client can act on it);
  // other failures are about our account upstream and say nothing of it.
  const detail = code === 'GW_UPSTREAM_BAD_REQUEST' && message ? sanitizeUpstreamMessage(message) : '';
  // The vendor's own words stay with the operator (issue 35), whatever the client is told; the
  // same rules as the client's text apply (no credentials, hosts, addresses or paths: issue 34).
  return new GatewayError(code, detail || DEFAULT_MESSAGES[code]!, { vendorMessage: message ? sanitizeUpstreamMessage(message) : undefined });
}

function codeForStatus(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'GW_UPSTREAM_AUTH';
  if (status === 408 || status === 504) return 'GW_UPSTREAM_TIMEOUT';
  if (status === 413) return 'GW_REQ_TOO_LARGE';
  if (status === 429) return 'GW_UPSTREAM_RATE_LIMITED';
  if (status === 503 || status === 529) return 'GW_UPSTREAM_UNAVAILABLE';
  if (status === 400 || status === 422) return 'GW_UPSTREAM_BAD_REQUEST';
  return 'GW_UPSTREAM_ERROR';
}

const DEFAULT_MESSAGES: Partial<Record<ErrorCode, string>> & Record<string, string> = {
  GW_UPSTREAM_AUTH: 'The upstream provider rejected the gateway credentials',
  GW_UPSTREAM_TIMEOUT: 'The upstream provider timed out',
  GW_REQ_TOO_LARGE: 'The upstream provider rejected the request as too large',
  GW_UPSTREAM_RATE_LIMITED: 'The upstream provider is rate limiting requests',
  GW_UPSTREAM_UNAVAILABLE: 'The upstream provider is overloaded or unavailable',
  GW_UPSTREAM_BAD_REQUEST: 'The upstream provider rejected the request',
  GW_UPSTREAM_ERROR: 'The upstream provider failed',
};

/** Upstream text loses URLs, hosts and anything shaped like a credential, and is kept short. */
export function sanitizeUpstreamMessage(message: string): string {
  return message
    .replace(/https?:\/\/\S+/gi, '[url]')
    .replace(/\b(?:sk|pk|rk|key|ak)[-_][A-Za-z0-9_-]{8,}/g, '[redacted]')
    .replace(/Bearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/\b[A-Za-z0-9_-]{32,}\b/g, '[redacted]')
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, '[host]')
    // IPv6: eight groups, or any run with '::' (issue 34), bracketed or not, with a port or not.
    .replace(/\[?(?:\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?|::[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)(?:%\w+)?\]?(?::\d+)?/gi, '[host]')
    // Absolute file paths (two segments or more) tell how the upstream is deployed.
    .replace(/(^|[\s"'(=:])\/(?:[\w.-]+\/)+[\w.-]*/g, '$1[path]')
    // Minted JSON Web Tokens (signed-request vendors): never relayed, whatever their length.
    .replace(/\beyJ[\w-]*\.[\w-]*\.[\w-]*/g, '[redacted]')
    .replace(/\borg-[A-Za-z0-9]+/g, '[organization]')
    .replace(/\s*Request ID:?\s*\S+/gi, '')
    .slice(0, 500);
}

/**
 * Reads `error.message` (or a top-level `message`) from an upstream error body, when present.
 * Only a vendor's structured explanation counts: a body that is not JSON (a proxy's HTML page
 * with its server version, a stack trace) is never relayed (issue 14).
 */
export function upstreamMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as { error?: { message?: unknown } | string; message?: unknown };
  if (record.error && typeof record.error === 'object' && typeof record.error.message === 'string') return record.error.message;
  if (typeof record.error === 'string') return record.error;
  return typeof record.message === 'string' ? record.message : undefined;
}
