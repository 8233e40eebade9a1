import type { IncomingHttpHeaders } from 'node:http';
import type { FamilyErrors } from '../../contracts/family-errors.js';
import type { GatewayError } from '../../errors.js';
import { renderChatError } from '../chat-completions/errors.js';

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

export const renderAnthropicError = (error: GatewayError, requestId?: string): unknown => ({
  type: 'error',
  error: { type: anthropicErrorType(error), message: error.message },
  request_id: requestId ?? null,
});

/** Anthropic's envelope: /v1/messages/count_tokens, whatever the client's headers. */
export const anthropicErrors: FamilyErrors = { schemaName: 'AnthropicError', render: (error, request) => renderAnthropicError(error, request.id) };

/** An Anthropic client (the SDKs, Claude Code): it sends `anthropic-version` on every call. */
export const isAnthropicClient = (headers: IncomingHttpHeaders): boolean => headers['anthropic-version'] !== undefined;

/**
 * /v1/messages: the chat envelope, or Anthropic's for requests that carry `anthropic-version`
 * (docs/decisions.md "Two modes of /v1/messages").
 */
export const messagesErrors: FamilyErrors = {
  schemaName: 'ChatError',
  render: (error, request) => (isAnthropicClient(request.headers) ? renderAnthropicError(error, request.id) : renderChatError(error)),
};
