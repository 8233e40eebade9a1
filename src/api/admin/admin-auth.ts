import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/connect.js';
import { GatewayError } from '../../errors.js';
import { verifyAdminToken } from '../../keys/bootstrap.js';
import { hashSecret } from '../../keys/secrets.js';

const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 1_000;

/**
 * Checks `Authorization: Bearer <admin token>` (constant-time, in verifyAdminToken). Verdicts are
 * cached for a few seconds by the presented token's hash, so a burst of admin calls costs one
 * settings read; a rotated token (GATEWAY_ADMIN_TOKEN at restart) is honoured at once.
 */
export function adminAuthenticator(db: Db, now: () => number): (request: FastifyRequest) => Promise<void> {
  const verdicts = new Map<string, { ok: boolean; until: number }>();
  return async (request) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) throw new GatewayError('GW_ADMIN_UNAUTHORIZED', "Missing admin token. Pass it as the 'Authorization: Bearer <ADMIN_TOKEN>' header.");
    const hash = hashSecret(match[1]!);
    const at = now();
    let verdict = verdicts.get(hash);
    if (!verdict || verdict.until <= at) {
      verdict = { ok: await verifyAdminToken(db, match[1]!), until: at + CACHE_TTL_MS };
      if (verdicts.size >= CACHE_MAX) verdicts.clear();
      verdicts.set(hash, verdict);
    }
    if (!verdict.ok) throw new GatewayError('GW_ADMIN_UNAUTHORIZED', 'Invalid admin token.');
  };
}
