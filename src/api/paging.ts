import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';

/** The most entries one page of a console list may ask for. */
export const MAX_PAGE_LIMIT = 200;

/** A list's `limit` query value (digits, checked by the schema): 50 when absent, else 1 to 200. */
export function pageLimit(value: string | undefined): number {
  const limit = value === undefined ? 50 : Number(value);
  if (limit < 1 || limit > MAX_PAGE_LIMIT) throw new GatewayError('GW_REQ_INVALID_PARAM', `'limit' must be between 1 and ${MAX_PAGE_LIMIT}`, { param: 'limit' });
  return limit;
}

/** A list served twice: to operators under /admin/api (everything) and to key holders under /console/api (their own keys'). */
export interface ScopedListRoutes {
  /** '/admin/api' or '/console/api'. */
  base: string;
  /** Route options of the calling plugin (its tags, security and description). */
  opts: (summary: string, schema?: Record<string, unknown>) => object;
  /** The signed-in user's id for the console; undefined for operators. */
  ownerOf: (request: FastifyRequest) => string | undefined;
}
