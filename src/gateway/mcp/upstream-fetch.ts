import type { Dispatcher } from 'undici';

/** The default most bytes one upstream MCP response may carry (GATEWAY_MCP_MAX_RESULT_BYTES). */
export const DEFAULT_MCP_MAX_RESULT_BYTES = 16 * 1024 * 1024;

/** An upstream MCP response went past its server's bound: the call fails and the connection is closed. */
export class ResultTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the upstream's answer was larger than ${limitBytes} bytes`);
  }
}

/** Node's fetch over the given undici dispatcher (per call, never set globally: the shared agent's pools, limits and timeouts). */
export const fetchThrough = (dispatcher: Dispatcher | undefined, input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  fetch(input, (dispatcher ? { ...init, dispatcher } : init) as unknown as RequestInit);

/**
 * A `fetch` for the SDK's client transport that goes through the gateway's shared undici agent
 * (its pools, connect timeout and limits) instead of the global one, and counts each response
 * body as it arrives: past `maxBytes` the body errors, which cancels it and closes the upstream
 * connection, and `onTooLarge` is told (the SDK reports a broken SSE stream to no caller, only to
 * its `onerror`, so the call would otherwise wait for its timeout). Nothing past the bound is read.
 */
export function boundedFetch(dispatcher: Dispatcher, maxBytes: number, onTooLarge: (error: ResultTooLargeError) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetchThrough(dispatcher, input, init);
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxBytes) return controller.enqueue(chunk);
          const error = new ResultTooLargeError(maxBytes);
          onTooLarge(error);
          controller.error(error);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
