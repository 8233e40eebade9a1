import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import type { Session, SessionStore } from '../../users/session-store.js';

/** The console's session cookie (HttpOnly, SameSite=Strict; Secure over HTTPS). */
export const SESSION_COOKIE = 'gw_session';
/** The header a page echoes its session's CSRF token in, on every state-changing request. */
export const CSRF_HEADER = 'x-csrf-token';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session token from the Cookie header, if the request carries one. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * `Secure` when the request came over HTTPS, or when the gateway's public URL is HTTPS (TLS ended
 * at a proxy in front of it): the browser then never sends the cookie over plain HTTP.
 */
export function sessionCookie(request: FastifyRequest, token: string, maxAgeMs: number, publicUrl: string | undefined): string {
  const secure = request.protocol === 'https' || publicUrl?.startsWith('https://') === true;
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}${secure ? '; Secure' : ''}`;
}

export const clearedSessionCookie = (request: FastifyRequest, publicUrl: string | undefined): string => sessionCookie(request, '', 0, publicUrl);

/**
 * Console writes carry JSON and say so (issue 23 item 6): an HTML form can only send
 * `application/x-www-form-urlencoded`, `multipart/form-data` or `text/plain`, and the gateway reads
 * any body as JSON, so a cross-site `text/plain` form could post a JSON body. A write with a body
 * must declare `application/json`; a write with another declared type is refused whatever its body.
 */
export function requireJsonWrite(request: FastifyRequest): void {
  if (!STATE_CHANGING.has(request.method)) return;
  const type = request.headers['content-type'];
  const hasBody = (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0') || request.headers['transfer-encoding'] !== undefined;
  if (type === undefined ? !hasBody : JSON_TYPE.test(type)) return;
  throw new GatewayError('GW_REQ_UNSUPPORTED_MEDIA_TYPE', "Console requests with a body must send it as JSON with 'Content-Type: application/json'.");
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Signing in and accepting an invitation need no session, so no CSRF token either: a browser's
 * request must come from the console's own origin (issue 23 item 6). Browsers send
 * `Sec-Fetch-Site` and `Origin` on these POSTs; clients that send neither (scripts) are not browsers.
 */
export function requireSameOrigin(request: FastifyRequest, publicUrl: string | undefined): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw crossSite();
  const origin = request.headers.origin;
  if (origin === undefined) return;
  // The address the browser used (its Host, which a page on another site cannot change), or the public URL.
  if (origin !== `${request.protocol}://${request.host}` && (!publicUrl || origin !== new URL(publicUrl).origin)) throw crossSite();
}

const crossSite = () => new GatewayError('GW_CSRF_FAILED', 'Signing in from another site is not allowed: use the console at its own address.');

/** Cookie-authenticated writes must echo the session's CSRF token (compared in constant time). */
export function checkCsrf(request: FastifyRequest, session: Session): void {
  if (!STATE_CHANGING.has(request.method)) return;
  const presented = request.headers[CSRF_HEADER];
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(typeof presented === 'string' ? presented : '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new GatewayError('GW_CSRF_FAILED', `Missing or wrong CSRF token: send the session's csrf_token in the ${CSRF_HEADER} header on every state-changing request.`);
  }
}

/** The session of a console request, set by the console's authentication hook. */
const sessions = new WeakMap<FastifyRequest, Session>();

export const rememberSession = (request: FastifyRequest, session: Session): void => void sessions.set(request, session);

export function sessionOfRequest(request: FastifyRequest): Session {
  const session = sessions.get(request);
  // Routes reading this run behind the hook that sets it; reaching here without one is a wiring bug.
  if (!session) throw new GatewayError('GW_SESSION_REQUIRED', 'Not signed in.');
  return session;
}

/**
 * Authenticates a request by its session cookie: 401 without a live session, 403 on a
 * state-changing request without the right CSRF token.
 */
export async function authenticateSession(request: FastifyRequest, store: SessionStore): Promise<Session> {
  const token = sessionTokenOf(request);
  const session = token ? await store.find(token) : undefined;
  if (!session) throw new GatewayError('GW_SESSION_REQUIRED', 'Not signed in, or the session has ended. Sign in at POST /console/api/session.');
  checkCsrf(request, session);
  requireJsonWrite(request);
  rememberSession(request, session);
  return session;
}
