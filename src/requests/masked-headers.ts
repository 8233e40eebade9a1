import type { IncomingHttpHeaders } from 'node:http';

/** Headers that carry credentials: their values never reach the log. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie', 'x-csrf-token']);

/**
 * A request's headers as the request log keeps them: secrets masked (an `Authorization` keeps its
 * scheme, so "Bearer" versus "Basic" is still visible), repeated headers joined.
 */
export function maskedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (!SECRET_HEADERS.has(name)) out[name] = text;
    else {
      const scheme = /^(\w+) /.exec(text);
      out[name] = scheme && (name === 'authorization' || name === 'proxy-authorization') ? `${scheme[1]} [masked]` : '[masked]';
    }
  }
  return out;
}
