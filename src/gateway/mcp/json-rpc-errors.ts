import type { ErrorCode } from '../../errors.js';

/**
 * Every JSON-RPC error code the MCP gateway answers with (docs/mcp.md, "Errors"), one table for
 * the HTTP layer, the gateway's own rules and upstream failures. The standard ones the SDK
 * defines (-32602 invalid params for a tool outside the grant, -32601 method not found) are the
 * SDK's `ErrorCode`. The -32000 range is JSON-RPC's server-error range.
 */
export const MCP_ERROR = {
  /** Refused at the HTTP level (401, 403, 404, 406…): the SDK transport's own code; `data.code` is the gateway's. */
  httpLevel: -32000,
  /** An unknown or ended session (HTTP 404): the client re-initializes (the SDK's code). */
  sessionNotFound: -32001,
  upstreamUnavailable: -32010,
  upstreamAuthFailed: -32011,
  upstreamTimeout: -32012,
  /** The upstream's answer was larger than the server's max_result_bytes: cut off, connection closed. */
  upstreamTooLarge: -32013,
  /** The key's rate limit or max_parallel_requests. */
  limited: -32029,
} as const;

/**
 * The catalogue code (src/errors.ts) a tool call's log entry records for each gateway code; an
 * upstream's own JSON-RPC error (any other code) is GW_UPSTREAM_ERROR.
 */
export const CATALOGUE_CODE_OF: Readonly<Record<number, ErrorCode>> = {
  [MCP_ERROR.upstreamUnavailable]: 'GW_UPSTREAM_UNAVAILABLE',
  [MCP_ERROR.upstreamAuthFailed]: 'GW_UPSTREAM_AUTH',
  [MCP_ERROR.upstreamTimeout]: 'GW_UPSTREAM_TIMEOUT',
  [MCP_ERROR.upstreamTooLarge]: 'GW_UPSTREAM_BAD_RESPONSE',
  [MCP_ERROR.limited]: 'GW_RATE_LIMITED',
};

export const catalogueCodeOf = (jsonRpcCode: number): ErrorCode => CATALOGUE_CODE_OF[jsonRpcCode] ?? 'GW_UPSTREAM_ERROR';
