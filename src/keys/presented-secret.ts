import type { FastifyRequest } from 'fastify';
import type { KeyLocation } from '../contracts/family-errors.js';

/** The key the request presented, where its route's family takes it (query, header) or as Bearer / x-api-key. */
export function presentedSecret(request: FastifyRequest, location: KeyLocation | undefined): string | undefined {
  const headers = request.headers;
  if (location) {
    const query = request.query as Record<string, unknown> | undefined;
    const queryValue = location.query === undefined ? undefined : query?.[location.query];
    const headerValue = location.header === undefined ? undefined : headers[location.header];
    const fromQuery = typeof queryValue === 'string' ? queryValue : undefined;
    const fromHeader = typeof headerValue === 'string' ? headerValue : undefined;
    if (fromQuery || fromHeader) return fromQuery || fromHeader;
  }
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : undefined;
}
