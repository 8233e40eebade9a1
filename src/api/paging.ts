import { GatewayError } from '../errors.js';

/** The most entries one page of a console list may ask for. */
export const MAX_PAGE_LIMIT = 200;

/** A list's `limit` query value (digits, checked by the schema): 50 when absent, else 1 to 200. */
export function pageLimit(value: string | undefined): number {
  const limit = value === undefined ? 50 : Number(value);
  if (limit < 1 || limit > MAX_PAGE_LIMIT) throw new GatewayError('GW_REQ_INVALID_PARAM', `'limit' must be between 1 and ${MAX_PAGE_LIMIT}`, { param: 'limit' });
  return limit;
}
