import type { FamilyErrors } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';

/** JSON-RPC code for errors the HTTP layer answers (the SDK transport's own range). */
export const HTTP_LEVEL_ERROR = -32000;
/** The SDK's code for an unknown or ended session (the client re-initializes on the 404). */
export const SESSION_NOT_FOUND = -32001;

/** A JSON-RPC error answer without an id: what an MCP client parses from a refused HTTP request. */
export const jsonRpcError = (code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0' as const, id: null, error: { code, message, ...(data === undefined ? {} : { data }) } });

/** The MCP routes' envelope (401 missing key, 403, 429...): JSON-RPC, with the gateway's error code as data. */
export const mcpErrors: FamilyErrors = {
  schemaName: 'JsonRpcError',
  render: (error: GatewayError) => jsonRpcError(HTTP_LEVEL_ERROR, error.message, { code: error.kind.publicCode }),
};
