/**
 * Google Vertex AI (shared/protocols/clouds.md §3).
 *   POST {host}/v1/projects/{p}/locations/{region}/publishers/google/models/{m}:generateContent
 *                                                                            :streamGenerateContent?alt=sse
 *   POST {host}/v1/projects/{p}/locations/{region}/publishers/anthropic/models/{m}:rawPredict | :streamRawPredict
 *   host: https://{region}-aiplatform.googleapis.com, https://aiplatform.googleapis.com for `global`
 *   https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest
 * Auth: `Authorization: Bearer <token>` from a service-account key (RS256 JWT → token_uri), or
 * express mode: `x-goog-api-key` on `/v1/publishers/…` (no project).
 */
import type { ChannelCredentials, UpstreamCall } from '../../contracts/upstream-call.js';
import { GatewayError } from '../../errors.js';
import { fetchAccessToken, MintedTokenCache } from '../minted-token.js';
import { readServiceAccount, serviceAccountAssertion } from './service-account.js';

export const VERTEX_BASE_URL = 'https://aiplatform.googleapis.com';

/** The publisher-relative path the translators emit; `routeCall` puts the project and region in front. */
export const publisherPath = (publisher: 'google' | 'anthropic', model: string, method: string): string =>
  // `claude-sonnet-4-5@20250929`: Vertex's version separator stays as it is.
  `/publishers/${publisher}/models/${encodeURIComponent(model).replace(/%40/g, '@')}:${method}`;

export function vertexRouteCall(call: UpstreamCall, credentials: ChannelCredentials): UpstreamCall {
  if (!call.path.startsWith('/publishers/')) return call;
  // Express mode (an API key, no project): Google's publisher models at the global endpoint.
  if (!credentials.project) return { ...call, path: `/v1${call.path}` };
  const region = credentials.region ?? 'global';
  return { ...call, path: `/v1/projects/${encodeURIComponent(credentials.project)}/locations/${encodeURIComponent(region)}${call.path}` };
}

export const vertexAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { 'x-goog-api-key': credentials.api_key } : {};

const googleTokens = new MintedTokenCache();

/** A bearer token from the service-account key (minted once per channel, renewed early), else the API key. */
export async function vertexAuthorize(credentials: ChannelCredentials, _request: unknown, nowMs: number): Promise<Record<string, string>> {
  const serviceAccount = credentials.service_account;
  if (!serviceAccount) {
    if (credentials.api_key) return vertexAuthHeaders(credentials);
    throw new GatewayError('GW_UPSTREAM_AUTH', 'The Vertex AI channel has neither service_account nor api_key');
  }
  const token = await googleTokens.tokenFor(['vertex', serviceAccount], nowMs, async () => {
    const key = readServiceAccount(serviceAccount);
    return fetchAccessToken('Google OAuth', key.tokenUri, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: serviceAccountAssertion(key, nowMs) }, nowMs);
  });
  return { authorization: `Bearer ${token}` };
}
