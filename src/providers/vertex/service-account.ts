import { readFileSync } from 'node:fs';
import { sign } from 'node:crypto';
import { GatewayError } from '../../errors.js';

/** The parts of a Google service-account JSON key the token exchange needs. */
export interface ServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Google's longest assertion lifetime (clouds.md §3). */
const ASSERTION_SECONDS = 3600;

/**
 * The channel's `service_account`: the key's JSON pasted whole, or the path of its file (read at
 * each mint, so a rotated file is picked up). Failures say what is wrong, never what the key holds.
 */
export function readServiceAccount(value: string): ServiceAccountKey {
  const trimmed = value.trim();
  let text = trimmed;
  if (!trimmed.startsWith('{')) {
    try {
      text = readFileSync(trimmed, 'utf8');
    } catch {
      throw new GatewayError('GW_UPSTREAM_AUTH', "The Vertex AI channel's service_account file cannot be read");
    }
  }
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new GatewayError('GW_UPSTREAM_AUTH', "The Vertex AI channel's service_account is not JSON");
  }
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string') {
    throw new GatewayError('GW_UPSTREAM_AUTH', "The Vertex AI channel's service_account has no client_email and private_key (a service-account key is needed)");
  }
  return {
    clientEmail: key.client_email,
    privateKey: key.private_key,
    privateKeyId: typeof key.private_key_id === 'string' ? key.private_key_id : undefined,
    tokenUri: typeof key.token_uri === 'string' && /^https?:\/\//.test(key.token_uri) ? key.token_uri : GOOGLE_TOKEN_URI,
  };
}

/** The token endpoint a service-account key names (Google's when it names none); undefined for a key that cannot be read, which fails at its first use. */
export function serviceAccountTokenUri(value: string): string | undefined {
  try {
    return readServiceAccount(value).tokenUri;
  } catch {
    return undefined;
  }
}

const base64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** The RS256 JWT Google exchanges for an access token (the `jwt-bearer` grant). */
export function serviceAccountAssertion(key: ServiceAccountKey, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(key.privateKeyId ? { kid: key.privateKeyId } : {}) }));
  const claims = base64url(JSON.stringify({ iss: key.clientEmail, scope: CLOUD_PLATFORM_SCOPE, aud: key.tokenUri, iat, exp: iat + ASSERTION_SECONDS }));
  let signature: Buffer;
  try {
    signature = sign('sha256', Buffer.from(`${header}.${claims}`), key.privateKey);
  } catch {
    throw new GatewayError('GW_UPSTREAM_AUTH', "The Vertex AI channel's service_account private_key cannot sign (not an RSA PEM key)");
  }
  return `${header}.${claims}.${base64url(signature)}`;
}
