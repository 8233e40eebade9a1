/**
 * The one way the console talks to the gateway: same-origin fetch with the session cookie, the
 * CSRF header on every write, the general error envelope turned into an ApiError, and a single
 * global answer to 401 (back to the sign-in page, once, keeping where the person was).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds, from Retry-After (429). */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | undefined;
let onUnauthorized: (() => void) | undefined;

export const setCsrfToken = (token: string | undefined): void => {
  csrfToken = token;
};

/** The session's CSRF header, for a write sent with fetch directly (a streamed answer). */
export const csrfHeader = (): Record<string, string> => (csrfToken ? { 'x-csrf-token': csrfToken } : {});

/** Called on any 401 except where the caller handles it (the sign-in forms). */
export const setUnauthorizedHandler = (handler: (() => void) | undefined): void => {
  onUnauthorized = handler;
};

export interface ApiOptions {
  signal?: AbortSignal | undefined;
  /** The caller shows 401 itself (a wrong password is not an expired session). */
  handle401?: boolean;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export async function api<T>(method: string, path: string, body?: unknown, options: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (WRITES.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? null : JSON.stringify(body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network_error', 'The gateway could not be reached. Check your connection and try again.', undefined);
  }
  if (response.ok) {
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
  const error = await toApiError(response);
  if (error.status === 401 && !options.handle401) onUnauthorized?.();
  throw error;
}

export async function toApiError(response: Response): Promise<ApiError> {
  let code = `http_${response.status}`;
  let message = `The gateway answered ${response.status} ${response.statusText}`.trim();
  try {
    const envelope = (await response.json()) as { error?: { message?: unknown; code?: unknown } };
    if (typeof envelope.error?.message === 'string') message = envelope.error.message;
    if (typeof envelope.error?.code === 'string') code = envelope.error.code;
  } catch {
    // Not the JSON envelope (a proxy's page): the status line says enough.
  }
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, code, message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

/** A query string from the fields that have a value. */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const isNotAvailable = (error: unknown): boolean => error instanceof ApiError && error.status === 404;

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 429 && error.retryAfter !== undefined) return `${error.message} (retry in ${error.retryAfter} s)`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
