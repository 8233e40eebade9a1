import type { SpanEnd, SpanStart } from './tracing.js';

export interface ToolCallSpanOptions {
  /** The tool as the client named it (`<server>__<tool>` on /mcp). */
  tool: string;
  /** The upstream server, when the name resolved to one the key may use. */
  server: { name: string; url: string } | undefined;
  sessionId: string | undefined;
}

/**
 * The client span of one `tools/call` (issue 31), a child of the request's span, named and
 * attributed as OpenTelemetry's MCP conventions ask (`{mcp.method.name} {gen_ai.tool.name}`,
 * `gen_ai.operation.name` execute_tool). Never the server's URL path or credentials: host and port.
 */
export function toolCallSpanStart({ tool, server, sessionId }: ToolCallSpanOptions): SpanStart {
  const url = server ? new URL(server.url) : undefined;
  return {
    name: `tools/call ${tool}`,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool,
      'mcp.session.id': sessionId,
      'server.address': url?.hostname.replace(/^\[|\]$/g, ''),
      'server.port': url ? (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80) : undefined,
      'gateway.mcp.server': server?.name,
    },
  };
}

export interface ToolCallOutcome {
  /** 200 answered (a tool's own error included), 403 refused, 429 limited, 502/504 upstream. */
  status: number;
  outcome: string;
  errorCode: string | null;
}

export function toolCallSpanEnd({ status, outcome, errorCode }: ToolCallOutcome): SpanEnd {
  // A tool's own failure (isError) is an answer: the span carries it as error.type without failing.
  return {
    attributes: { 'gateway.status': status, 'gateway.outcome': outcome, 'error.type': errorCode ?? undefined },
    isError: outcome !== 'success' && outcome !== 'tool_error',
  };
}
