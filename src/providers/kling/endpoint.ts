/**
 * Kling AI video API (shared/protocols/kling.md).
 *   POST /v1/videos/{text2video|image2video|multi-image2video}             create
 *   GET  /v1/videos/{text2video|image2video|multi-image2video}/{task_id}   query (per capability)
 * Auth: `Authorization: Bearer <JWT>`, HS256 over {iss: AccessKey, exp: now+1800, nbf: now-5},
 * signed with the SecretKey (Kling "General Info" page, official sample).
 */
import { createHash, createHmac } from 'node:crypto';
import type { ChannelCredentials } from '../../contracts/upstream-call.js';

/** Replaced https://api.klingai.com for servers outside China. */
export const KLING_BASE_URL = 'https://api-singapore.klingai.com';

export const klingCreatePath = (capability: string): string => `/v1/videos/${capability}`;
export const klingTaskPath = (capability: string, taskId: string): string => `/v1/videos/${capability}/${encodeURIComponent(taskId)}`;

const TOKEN_LIFETIME_S = 1800;
const CLOCK_SKEW_S = 5;
/** A cached token is replaced this long before it expires, so no request carries a dying token. */
const REFRESH_MARGIN_S = 300;

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** Signs a Kling JWT: header and payload exactly as the official sample. */
export function signKlingJwt(accessKey: string, secretKey: string, nowSeconds: number): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ iss: accessKey, exp: nowSeconds + TOKEN_LIFETIME_S, nbf: nowSeconds - CLOCK_SKEW_S }));
  const signature = createHmac('sha256', secretKey).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/**
 * Auth headers with a JWT reused until shortly before it expires (one per key pair). The cache
 * belongs to the provider object that creates it; it is keyed by a digest, not the secret.
 */
export function klingAuthHeaders(): (credentials: ChannelCredentials, nowSeconds: number) => Record<string, string> {
  const cache = new Map<string, { token: string; expiresAt: number }>();
  return (credentials, nowSeconds): Record<string, string> => {
    const { access_key: accessKey, secret_key: secretKey } = credentials;
    if (!accessKey || !secretKey) return {};
    const id = createHash('sha256').update(`${accessKey}\0${secretKey}`).digest('hex');
    let entry = cache.get(id);
    if (!entry || nowSeconds >= entry.expiresAt - REFRESH_MARGIN_S || nowSeconds < entry.expiresAt - TOKEN_LIFETIME_S) {
      entry = { token: signKlingJwt(accessKey, secretKey, nowSeconds), expiresAt: nowSeconds + TOKEN_LIFETIME_S };
      cache.set(id, entry);
    }
    return { authorization: `Bearer ${entry.token}` };
  };
}

/** Kling's `authorize`: the JWT of the channel's key pair, signed once per lifetime. */
export function klingAuthorize(): (credentials: ChannelCredentials, request: unknown, nowMs: number) => Promise<Record<string, string>> {
  const headers = klingAuthHeaders();
  return async (credentials, _request, nowMs) => headers(credentials, Math.floor(nowMs / 1000));
}
