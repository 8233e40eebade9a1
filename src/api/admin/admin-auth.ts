import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/connect.js';
import { GatewayError } from '../../errors.js';
import { verifyAdminToken } from '../../keys/bootstrap.js';
import { hashSecret } from '../../keys/secrets.js';
import type { SessionStore } from '../../users/session-store.js';
import { authenticateSession, sessionTokenOf } from '../management/session-auth.js';
import { ADMIN_TOKEN_ACCOUNT, type SignInLimiter } from '../../users/sign-in-limiter.js';

const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 1_000;

/**
 * Admits an operator: `Authorization: Bearer <admin token>` (constant-time, in verifyAdminToken),
 * or, without that header, an operator's console session cookie (plus the CSRF header on writes,
 * issue 12). A key holder's session is refused with 403. Token verdicts are cached for a few
 * seconds by the presented token's hash, so a burst of admin calls costs one settings read; a
 * rotated token (GATEWAY_ADMIN_TOKEN at restart) is honoured at once.
 */
export function adminAuthenticator(db: Db, now: () => number, sessions: SessionStore, limiter: SignInLimiter): (request: FastifyRequest) => Promise<void> {
  const verdicts = new Map<string, { ok: boolean; until: number }>();
  return async (request) => {
    const authorization = request.headers.authorization;
    if (authorization === undefined && sessionTokenOf(request) !== undefined) {
      const session = await authenticateSession(request, sessions);
      if (session.user.role !== 'operator') throw new GatewayError('GW_OPERATOR_ONLY', 'The admin API is for operators; this account is a key holder (use /console/api).');
      return;
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw new GatewayError('GW_ADMIN_UNAUTHORIZED', "Missing admin token. Pass it as the 'Authorization: Bearer <ADMIN_TOKEN>' header.");
    const hash = hashSecret(match[1]!);
    const at = now();
    let verdict = verdicts.get(hash);
    if (!verdict || verdict.until <= at) {
      verdict = { ok: await verifyAdminToken(db, match[1]!), until: at + CACHE_TTL_MS };
      if (verdicts.size >= CACHE_MAX) verdicts.clear();
      verdicts.set(hash, verdict);
      // A token not just seen to be right is counted like a sign-in (issue 23): guesses are limited per address.
      const wait = await limiter.judge(request.ip, ADMIN_TOKEN_ACCOUNT, verdict.ok);
      if (wait !== undefined) {
        verdicts.delete(hash);
        throw new GatewayError('GW_SIGN_IN_RATE_LIMITED', `Too many wrong admin tokens from this address; try again in ${wait} s.`, { retryAfterSeconds: wait });
      }
    } else if (!verdict.ok) {
      const wait = await limiter.judge(request.ip, ADMIN_TOKEN_ACCOUNT, false);
      if (wait !== undefined) throw new GatewayError('GW_SIGN_IN_RATE_LIMITED', `Too many wrong admin tokens from this address; try again in ${wait} s.`, { retryAfterSeconds: wait });
    }
    if (!verdict.ok) throw new GatewayError('GW_ADMIN_UNAUTHORIZED', 'Invalid admin token.');
  };
}
