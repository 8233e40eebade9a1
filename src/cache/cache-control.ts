import type { IncomingHttpHeaders } from 'node:http';

/** What a request asks of the cache through its headers (issue 32, RFC 9111's request directives). */
export interface CacheDirectives {
  /** Look the request up (false on `no-cache` and `no-store`). */
  read: boolean;
  /** Store the answer (false on `no-store`). */
  write: boolean;
  /** `max-age=N`: accept an entry no older than N seconds. */
  maxAgeS: number | undefined;
  /** `x-gateway-cache-ttl`: this answer's TTL in seconds instead of the default. */
  ttlS: number | undefined;
  /** `x-gateway-cache-namespace`: a sub-namespace within the key's scope. */
  namespace: string | undefined;
}

const NAMESPACE = /^[A-Za-z0-9._:@/+-]{1,64}$/;
const MAX_TTL_S = 31_536_000;

/** Reads the request's cache headers; a malformed value is a client error (its message), not a 500. */
export function cacheDirectivesOf(headers: IncomingHttpHeaders): CacheDirectives | string {
  const directives: CacheDirectives = { read: true, write: true, maxAgeS: undefined, ttlS: undefined, namespace: undefined };
  const control = headers['cache-control'];
  if (control !== undefined) {
    for (const part of control.toLowerCase().split(',')) {
      const [name, value] = part.trim().split('=', 2) as [string, string | undefined];
      if (name === 'no-store') directives.read = directives.write = false;
      else if (name === 'no-cache') directives.read = false;
      else if (name === 'max-age') {
        const seconds = secondsOf(value);
        if (seconds === undefined) return "Cache-Control 'max-age' must be a whole number of seconds";
        directives.maxAgeS = seconds;
      }
    }
  }
  const ttl = headers['x-gateway-cache-ttl'];
  if (typeof ttl === 'string') {
    const seconds = secondsOf(ttl);
    if (seconds === undefined || seconds < 1 || seconds > MAX_TTL_S) return `x-gateway-cache-ttl must be a whole number of seconds from 1 to ${MAX_TTL_S}`;
    directives.ttlS = seconds;
  }
  const namespace = headers['x-gateway-cache-namespace'];
  if (typeof namespace === 'string') {
    if (!NAMESPACE.test(namespace)) return 'x-gateway-cache-namespace must be 1 to 64 letters, digits or . _ : @ / + -';
    directives.namespace = namespace;
  }
  return directives;
}

function secondsOf(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,10}$/.test(text.trim())) return undefined;
  return Number(text.trim());
}
