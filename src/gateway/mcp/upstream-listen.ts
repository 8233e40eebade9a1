import type { Dispatcher } from 'undici';
import { JSONRPCNotificationSchema, type JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import { parseSseBatches } from '../../sse/parse.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import type { McpServer } from './server-store.js';
import type { UpstreamSessionRef } from './session-store.js';
import type { McpHealth } from './health.js';
import { fetchThrough, ResultTooLargeError } from './upstream-fetch.js';

/** An upstream's open server-to-client stream: `ended` settles when the upstream closes it or `signal` aborts. */
export interface UpstreamListening {
  ended: Promise<void>;
}

/**
 * Opens an upstream's standalone GET stream for one of its sessions (issue 31) and hands each
 * notification it sends to `onNotification`. Written on the SDK's SSE reading rules but not on its
 * client transport: that one reconnects on its own and answers nothing to the caller about a 405,
 * while the gateway needs to know whether a stream is open and to end it with the client's.
 * Server-to-client requests (sampling, elicitation, roots) are not relayed: the gateway answers
 * for nobody. Undefined when the upstream offers no stream (405) or cannot be reached.
 */
export async function listenUpstream(
  parts: { credentials: Record<string, string>; health: McpHealth; timeoutMs: number; dispatcher: Dispatcher; maxEventBytes: number },
  server: McpServer,
  ref: UpstreamSessionRef,
  signal: AbortSignal,
  onNotification: (notification: JSONRPCNotification) => void,
): Promise<UpstreamListening | undefined> {
  const headers = { ...parts.credentials, accept: 'text/event-stream', 'mcp-session-id': ref.sessionId, 'mcp-protocol-version': ref.protocolVersion };
  // The wait for the stream's headers is bounded like any upstream request; the stream itself is not.
  const opening = new AbortController();
  const timer = setTimeout(() => opening.abort(), parts.timeoutMs);
  let response: Response;
  try {
    // A redirect is not followed (no stream): it would take the credentials past the link-local guard.
    response = await fetchThrough(parts.dispatcher, server.url, { method: 'GET', headers, redirect: 'manual', signal: AbortSignal.any([signal, opening.signal]) });
  } catch {
    if (!signal.aborted) parts.health.failed(server.name, `MCP server '${server.name}': its server-to-client stream could not be opened`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok || !response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    await response.body?.cancel().catch(() => undefined);
    if (response.status === 401 || response.status === 403) parts.health.failed(server.name, `MCP server '${server.name}' refused the gateway's credentials (HTTP ${response.status})`);
    return undefined;
  }
  const body = response.body;
  // The stream lasts, but no one event may be larger than the server's max_result_bytes: past it the stream ends (connection closed).
  let pending = 0;
  const counted = async function* () {
    for await (const chunk of body) {
      pending += chunk.byteLength;
      if (pending > parts.maxEventBytes) throw new ResultTooLargeError(parts.maxEventBytes);
      yield chunk;
    }
  };
  const relay = (event: SseEvent) => {
    if (event.event !== undefined && event.event !== 'message') return;
    let message: unknown;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    const notification = JSONRPCNotificationSchema.safeParse(message);
    if (notification.success) onNotification(notification.data);
  };
  const ended = (async () => {
    try {
      for await (const batch of parseSseBatches(counted())) {
        if (batch.length > 0) pending = 0;
        for (const event of batch) relay(event);
      }
    } catch {
      // Aborted by the client's end, an event over the bound, or the upstream cut the connection: either way the stream is over.
    }
  })();
  return { ended };
}
