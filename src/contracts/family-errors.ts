import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError } from '../errors.js';

/** What an envelope may read of the request it answers. */
export interface ErrorRequest {
  url: string;
  headers: IncomingHttpHeaders;
  id: string;
}

/**
 * Where a family's clients put their API key, beyond `Authorization: Bearer` and `x-api-key`
 * (which every route takes): a query parameter and a header read first, and the hint a 401 gives.
 */
export interface KeyLocation {
  query?: string;
  header?: string;
  /** How the 401 for a missing key says to send it ("Pass it as the …"). */
  hint: string;
}

/**
 * One endpoint family's errors (issue 28): the envelope its clients parse and where they send
 * their key. Each family declares its own in `api/<family>/errors.ts` and on its routes' config.
 */
export interface FamilyErrors {
  /** The envelope's name in the OpenAPI document. */
  schemaName: string;
  render(error: GatewayError, request: ErrorRequest): unknown;
  key?: KeyLocation;
}

export const BEARER_KEY_HINT = "'Authorization: Bearer <API_KEY>' header";
