import type { FamilyErrors } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';
import { MCP_ERROR } from '../../gateway/mcp/json-rpc-errors.js';

/** A JSON-RPC error answer without an id: what an MCP client parses from a refused HTTP request. */
export const jsonRpcError = (code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0' as const, id: null, error: { code, message, ...(data === undefined ? {} : { data }) } });

/** The MCP routes' envelope (401 missing key, 403, 429...): JSON-RPC, with the gateway's error code as data. */
export const mcpErrors: FamilyErrors = {
  schemaName: 'JsonRpcError',
  render: (error: GatewayError) => jsonRpcError(MCP_ERROR.httpLevel, error.message, { code: error.kind.publicCode }),
};
