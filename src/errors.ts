/**
 * The gateway's error catalogue. Every error a client can see is a GatewayError carrying one of
 * these codes; each endpoint family renders it in its own envelope (src/api/envelopes.ts).
 * `publicCode` is the string code clients read, `type` the OpenAI-style error type, `status`
 * the HTTP status and `grpcStatus` the canonical status used by the /v1beta envelope.
 */
export interface ErrorKind {
  readonly status: number;
  readonly publicCode: string;
  readonly type: string;
  readonly grpcStatus: GrpcStatus;
}

export type GrpcStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED'
  | 'FAILED_PRECONDITION'
  | 'CANCELLED';

const kind = (status: number, publicCode: string, type: string, grpcStatus: GrpcStatus): ErrorKind =>
  Object.freeze({ status, publicCode, type, grpcStatus });

export const ERRORS = Object.freeze({
  GW_AUTH_MISSING_KEY: kind(401, 'invalid_api_key', 'authentication_error', 'UNAUTHENTICATED'),
  GW_AUTH_INVALID_KEY: kind(401, 'invalid_api_key', 'authentication_error', 'UNAUTHENTICATED'),
  GW_AUTH_KEY_REVOKED: kind(401, 'invalid_api_key', 'authentication_error', 'UNAUTHENTICATED'),
  GW_AUTH_KEY_EXPIRED: kind(401, 'invalid_api_key', 'authentication_error', 'UNAUTHENTICATED'),
  GW_AUTH_KEY_DISABLED: kind(401, 'invalid_api_key', 'authentication_error', 'UNAUTHENTICATED'),
  GW_ADMIN_UNAUTHORIZED: kind(401, 'invalid_admin_token', 'authentication_error', 'UNAUTHENTICATED'),
  GW_PERMISSION_DENIED: kind(403, 'permission_denied', 'permission_error', 'PERMISSION_DENIED'),
  GW_REQ_INVALID_JSON: kind(400, 'invalid_json', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_REQ_INVALID_PARAM: kind(400, 'invalid_parameter', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_REQ_UNSUPPORTED_MEDIA_TYPE: kind(400, 'unsupported_media_type', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_REQ_TOO_LARGE: kind(413, 'request_too_large', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_ROUTE_NOT_FOUND: kind(404, 'not_found', 'invalid_request_error', 'NOT_FOUND'),
  GW_RESOURCE_NOT_FOUND: kind(404, 'not_found', 'invalid_request_error', 'NOT_FOUND'),
  GW_MODEL_UNSUPPORTED: kind(400, 'model_not_supported', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_RATE_LIMITED: kind(429, 'rate_limit_exceeded', 'rate_limit_error', 'RESOURCE_EXHAUSTED'),
  GW_QUOTA_EXCEEDED: kind(429, 'insufficient_quota', 'insufficient_quota', 'RESOURCE_EXHAUSTED'),
  GW_UPSTREAM_BAD_REQUEST: kind(400, 'invalid_request', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_UPSTREAM_CONTENT_FILTER: kind(400, 'content_filter', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_UPSTREAM_AUTH: kind(502, 'upstream_auth_failed', 'api_error', 'UNAVAILABLE'),
  GW_UPSTREAM_RATE_LIMITED: kind(429, 'upstream_rate_limited', 'rate_limit_error', 'RESOURCE_EXHAUSTED'),
  GW_UPSTREAM_TIMEOUT: kind(504, 'upstream_timeout', 'api_error', 'DEADLINE_EXCEEDED'),
  GW_UPSTREAM_UNAVAILABLE: kind(503, 'upstream_unavailable', 'api_error', 'UNAVAILABLE'),
  GW_UPSTREAM_ERROR: kind(502, 'upstream_error', 'api_error', 'UNAVAILABLE'),
  /** The client left before its answer was complete (issue 33): not the upstream's fault. 499 as nginx logs it; nobody is there to read the body. */
  GW_CLIENT_CLOSED: kind(499, 'client_closed', 'api_error', 'CANCELLED'),
  GW_UPSTREAM_BAD_RESPONSE: kind(502, 'upstream_bad_response', 'api_error', 'UNAVAILABLE'),
  GW_NO_CHANNEL: kind(503, 'no_channel_available', 'api_error', 'UNAVAILABLE'),
  GW_INTERNAL: kind(500, 'internal_error', 'api_error', 'INTERNAL'),
  /** The database (or the disk under it) refused a write or cannot be reached: retry later. */
  GW_STORE_UNAVAILABLE: kind(503, 'service_unavailable', 'api_error', 'UNAVAILABLE'),
  /** Too many request bytes in flight on this instance: retry later (issue 13). */
  GW_OVERLOADED: kind(503, 'overloaded', 'api_error', 'UNAVAILABLE'),
  /** The client did not finish sending its body in time. */
  GW_REQUEST_TIMEOUT: kind(408, 'request_timeout', 'invalid_request_error', 'DEADLINE_EXCEEDED'),
  GW_HEADERS_TOO_LARGE: kind(431, 'headers_too_large', 'invalid_request_error', 'INVALID_ARGUMENT'),
  // The console (issue 12): sessions, sign-in, CSRF, users and their allowances.
  GW_SESSION_REQUIRED: kind(401, 'not_signed_in', 'authentication_error', 'UNAUTHENTICATED'),
  GW_SIGN_IN_FAILED: kind(401, 'invalid_credentials', 'authentication_error', 'UNAUTHENTICATED'),
  GW_SIGN_IN_RATE_LIMITED: kind(429, 'too_many_sign_in_attempts', 'rate_limit_error', 'RESOURCE_EXHAUSTED'),
  GW_CSRF_FAILED: kind(403, 'csrf_failed', 'permission_error', 'PERMISSION_DENIED'),
  GW_OPERATOR_ONLY: kind(403, 'operator_only', 'permission_error', 'PERMISSION_DENIED'),
  GW_ALLOWANCE_EXCEEDED: kind(403, 'allowance_exceeded', 'permission_error', 'PERMISSION_DENIED'),
  GW_INVITATION_INVALID: kind(400, 'invalid_invitation', 'invalid_request_error', 'INVALID_ARGUMENT'),
  GW_CONFLICT: kind(409, 'conflict', 'invalid_request_error', 'FAILED_PRECONDITION'),
} satisfies Record<string, ErrorKind>);

export type ErrorCode = keyof typeof ERRORS;

export interface GatewayErrorOptions {
  /** The request field the error is about, when there is one. */
  param?: string;
  /** Seconds the client should wait before retrying (sent as Retry-After). */
  retryAfterSeconds?: number;
  /** A vendor's numeric business code about the client's request (Kling's 1201, 1301, 1303…), kept in that vendor's native envelope. */
  vendorCode?: number;
  /**
   * The upstream's own error text, for the operator's views only (attempts, channel health, Test;
   * issue 35): never rendered to the client, redacted of the channel's secrets by value.
   */
  vendorMessage?: string;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly param: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly vendorCode: number | undefined;
  readonly vendorMessage: string | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.kind = ERRORS[code];
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.vendorCode = options.vendorCode;
    this.vendorMessage = options.vendorMessage;
  }

  /** The same error with some parts replaced (a redacted message, an upstream's Retry-After). */
  with(changes: { message?: string } & Pick<GatewayErrorOptions, 'retryAfterSeconds' | 'vendorMessage'>): GatewayError {
    return new GatewayError(this.code, changes.message ?? this.message, {
      retryAfterSeconds: 'retryAfterSeconds' in changes ? changes.retryAfterSeconds : this.retryAfterSeconds,
      param: this.param,
      vendorCode: this.vendorCode,
      vendorMessage: 'vendorMessage' in changes ? changes.vendorMessage : this.vendorMessage,
      cause: this.cause,
    });
  }

  get status(): number {
    return this.kind.status;
  }
}

export const isGatewayError = (value: unknown): value is GatewayError => value instanceof GatewayError;
