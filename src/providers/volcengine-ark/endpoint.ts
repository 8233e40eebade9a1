/**
 * Volcengine Ark data plane (shared/protocols/volcengine-ark.md).
 *   POST /api/v3/chat/completions   OpenAI-shaped, plus `thinking` and `reasoning_content`
 *   POST /api/v3/responses          Responses API
 * Auth: `Authorization: Bearer <ARK_API_KEY>`. Errors: https://volcengine.com/docs/82379/1299023
 */
import type { ChannelCredentials, SignableRequest } from '../../contracts/upstream-call.js';
import { signVolcengineRequest } from './openapi-signature.js';

export const ARK_BASE_URL = 'https://ark.cn-beijing.volces.com/api/v3';

export const arkAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {};

/**
 * The signed control-plane OpenAPI (asset library): `POST /?Action=<Action>&Version=2024-01-01`,
 * service `ark`, AK/SK-signed (volcengine-ark.md "Asset library"). The host is the channel's
 * `base_url` and the region its `region` (cn-beijing by default), so BytePlus and other regions work.
 */
export const ARK_OPENAPI_VERSION = '2024-01-01';
const ARK_OPENAPI_SERVICE = 'ark';
const ARK_OPENAPI_REGION = 'cn-beijing';

export function arkSignRequest(credentials: ChannelCredentials, request: SignableRequest, nowMs: number): Record<string, string> {
  if (!credentials.access_key || !credentials.secret_key) return {};
  return signVolcengineRequest({
    method: request.method,
    host: request.url.host,
    path: request.url.pathname,
    query: Object.fromEntries(request.url.searchParams),
    body: request.body,
    accessKey: credentials.access_key,
    secretKey: credentials.secret_key,
    region: credentials.region ?? ARK_OPENAPI_REGION,
    service: ARK_OPENAPI_SERVICE,
    now: nowMs,
  });
}

/** Ark's `authorize`: the API key as a bearer, or an AK/SK signature for calls that ask for one (the asset library). */
export async function arkAuthorize(credentials: ChannelCredentials, request: SignableRequest, nowMs: number): Promise<Record<string, string>> {
  return request.auth === 'request-signature' ? arkSignRequest(credentials, request, nowMs) : arkAuthHeaders(credentials);
}
