import type { FastifyRequest } from 'fastify';
import { newEntryId } from '../../usage/entry-id.js';

export interface ToolCallRecord {
  server: string;
  /** As the client named it (`<server>__<tool>` on /mcp). */
  tool: string;
  startedAt: number;
  /** 200 for an answer (a tool's own error included), 403 refused, 429 limited, 502/504 upstream. */
  status: number;
  outcome: 'success' | 'tool_error' | 'denied' | 'rate_limited' | 'error';
  errorCode: string | null;
  errorMessage: string | null;
  argumentsText: string;
  resultText: string | undefined;
}

/**
 * One request-log entry per tool call (issue 31), family `mcp`: the server is the channel, the
 * tool the model, no tokens and no cost. Argument and result bodies only when body logging is on;
 * their sizes always (in the entry's attempts line, which the log's drawer shows).
 */
export function recordToolCall(request: FastifyRequest, call: ToolCallRecord): void {
  const { usage, requestLog } = request.server.gateway;
  const now = Date.now();
  const entryId = newEntryId(call.startedAt);
  usage.record({
    entry_id: entryId,
    request_id: request.id,
    key_id: request.gw.key?.id ?? null,
    model: call.tool,
    channel: call.server,
    family: 'mcp',
    status: call.status,
    outcome: call.outcome,
    prompt_tokens: 0,
    completion_tokens: 0,
    reasoning_tokens: 0,
    images: 0,
    video_seconds: 0,
    cost_usd: 0,
    latency_ms: now - call.startedAt,
    ttft_ms: null,
    created_at: now,
    error_code: call.errorCode,
    cached_tokens: 0,
    cache_write_5m_tokens: 0,
    cache_write_1h_tokens: 0,
    image_input_tokens: 0,
    image_output_tokens: 0,
    billed_price: null,
  });
  const bodies = requestLog.settings.bodies;
  const sizes = `arguments ${Buffer.byteLength(call.argumentsText)} bytes, result ${call.resultText === undefined ? 0 : Buffer.byteLength(call.resultText)} bytes`;
  requestLog.record({
    entry_id: entryId,
    request_id: request.id,
    created_at: now,
    retries: 0,
    fallbacks: 0,
    error_code: call.errorCode,
    error_message: call.errorMessage === null ? (call.outcome === 'success' ? null : sizes) : `${call.errorMessage} (${sizes})`,
    headers: request.headers,
    request_body: bodies ? requestLog.clip(call.argumentsText) : undefined,
    response_body: bodies && call.resultText !== undefined ? requestLog.clip(call.resultText) : undefined,
  });
}
