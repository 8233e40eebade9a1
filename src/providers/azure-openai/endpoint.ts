/**
 * Azure OpenAI (shared/protocols/clouds.md §1).
 *   Deployment form: POST {endpoint}/openai/deployments/{deployment}/{op}?api-version=2024-10-21
 *                    POST {endpoint}/openai/responses?api-version=<preview> (deployment in `model`)
 *   v1 form:         POST {endpoint}/openai/v1/{op} (`model` = deployment; no api-version)
 *   Batch:           POST {endpoint}/openai/files (purpose=batch), POST /openai/batches, GET /openai/batches/{id},
 *                    GET /openai/files/{id}/content, POST /openai/batches/{id}/cancel (v1 form: under /openai/v1)
 *                    https://learn.microsoft.com/azure/ai-foundry/openai/how-to/batch
 *   https://learn.microsoft.com/azure/ai-foundry/openai/reference
 * Auth: `api-key: <key>`, or `Authorization: Bearer <token>` minted by Microsoft Entra ID from the
 * channel's client credentials (scope https://cognitiveservices.azure.com/.default).
 */
import type { ChannelCredentials, UpstreamCall } from '../../contracts/upstream-call.js';
import { GatewayError } from '../../errors.js';
import { fetchAccessToken, MintedTokenCache } from '../minted-token.js';

export const AZURE_OPENAI_BASE_URL = 'https://{resource}.openai.azure.com';
export const ENTRA_AUTHORITY_HOST = 'https://login.microsoftonline.com';
const ENTRA_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** The deployment-scoped path the translators emit; `routeCall` keeps it or moves it to the v1 form. */
export const deploymentPath = (deployment: string, op: string): string => `/openai/deployments/${encodeURIComponent(deployment)}${op}`;
/** Responses is not deployment-scoped (the deployment is the body's `model`). */
export const RESPONSES_PATH = '/openai/responses';

const DEPLOYMENT_PATH = /^\/openai\/deployments\/[^/]+(\/.*)$/;
/** Files and batches (issue 46) are resource-scoped, like Responses: `/openai/files`, `/openai/batches/…`. */
const RESOURCE_PATH = /^\/openai(\/(?:files|batches)(?:\/.*)?)$/;

/** The deployment form with the channel's `api-version`, or the v1 form where it has none. */
export function azureRouteCall(call: UpstreamCall, credentials: ChannelCredentials): UpstreamCall {
  if (credentials.api_version) return { ...call, query: { ...call.query, 'api-version': credentials.api_version } };
  const deployment = DEPLOYMENT_PATH.exec(call.path);
  if (deployment) return { ...call, path: `/openai/v1${deployment[1]}` };
  if (call.path === RESPONSES_PATH) return { ...call, path: '/openai/v1/responses' };
  const resource = RESOURCE_PATH.exec(call.path);
  if (resource) return { ...call, path: `/openai/v1${resource[1]}` };
  return call;
}

export const azureAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { 'api-key': credentials.api_key } : {};

const entraTokens = new MintedTokenCache();

/** `api-key` when the channel has one; else a bearer token from Entra ID, minted once per channel and renewed early. */
export async function azureAuthorize(credentials: ChannelCredentials, _request: unknown, nowMs: number): Promise<Record<string, string>> {
  if (credentials.api_key) return azureAuthHeaders(credentials);
  const { tenant_id: tenantId, client_id: clientId, client_secret: clientSecret } = credentials;
  if (!tenantId || !clientId || !clientSecret) {
    throw new GatewayError('GW_UPSTREAM_AUTH', 'The Azure OpenAI channel has neither api_key nor tenant_id, client_id and client_secret');
  }
  const authority = (credentials.authority_host ?? ENTRA_AUTHORITY_HOST).replace(/\/$/, '');
  const token = await entraTokens.tokenFor([authority, tenantId, clientId, clientSecret], nowMs, () =>
    fetchAccessToken('Microsoft Entra ID', `${authority}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`, {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      scope: ENTRA_SCOPE,
    }, nowMs),
  );
  return { authorization: `Bearer ${token}` };
}
