import { GatewayError } from '../errors.js';

/** SQLite result codes of a store that cannot take writes now (disk full, I/O, locked, read-only). */
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|IOERR|READONLY|BUSY|LOCKED|CANTOPEN|NOMEM)/;
/** Node socket and file-system errors (disk full, read-only, I/O) and PostgreSQL classes 08 (connection), 53 (insufficient resources), 57P (shutdown). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);
const PG_UNAVAILABLE = /^(08|53|57P)/;
const POOL_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i;

/** Seconds a client is asked to wait when the store is unavailable. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether an error means the database (or the disk under it) is unavailable rather than that
 * the request was wrong: such requests get a 503 with Retry-After, never a 500.
 */
export function isStoreUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (SQLITE_UNAVAILABLE.test(code) || NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
  if (error instanceof AggregateError) return error.errors.some(isStoreUnavailable);
  return error instanceof Error && POOL_MESSAGES.test(error.message);
}

export const storeUnavailable = (cause: unknown): GatewayError =>
  new GatewayError('GW_STORE_UNAVAILABLE', 'The gateway cannot reach its database right now; retry shortly', { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS, cause });
