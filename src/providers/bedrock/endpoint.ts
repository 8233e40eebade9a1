/**
 * AWS Bedrock runtime (shared protocol notes: clouds.md §2).
 *   POST /model/{modelId}/converse                        Converse (every chat-shaped family)
 *   POST /model/{modelId}/converse-stream                 ConverseStream (binary event stream)
 *   POST /model/{modelId}/invoke                          InvokeModel (Claude: the Messages body)
 *   POST /model/{modelId}/invoke-with-response-stream     InvokeModelWithResponseStream
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * Auth: SigV4 (service `bedrock`, the channel's region) with an access key pair (and the session
 * token of temporary credentials), or a Bedrock API key as a bearer token; a channel with neither
 * takes the standard AWS credential chain (aws-credentials.ts). With it, the only files that see credentials.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ChannelCredentials, SignableRequest } from '../../contracts/upstream-call.js';
import { GatewayError } from '../../errors.js';
import { keysFromEnvironment, keysFromRoleSources, type AwsKeys } from './aws-credentials.js';

export const BEDROCK_DEFAULT_REGION = 'us-east-1';
export const BEDROCK_BASE_URL = `https://bedrock-runtime.${BEDROCK_DEFAULT_REGION}.amazonaws.com`;
/** The SigV4 signing name of the runtime API (not `bedrock-runtime`). */
export const BEDROCK_SIGNING_SERVICE = 'bedrock';
/** The body's `anthropic_version` for Claude through InvokeModel. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
/** What ConverseStream and InvokeModelWithResponseStream answer with. */
export const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';

export type BedrockOperation = 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream';

/** `{modelId}` is one path label: `:` of `…-v1:0` and `/` of an inference-profile ARN are percent-encoded. */
export const bedrockPath = (modelId: string, operation: BedrockOperation): string => `/model/${encodeURIComponent(modelId)}/${operation}`;

/** Claude models and their inference profiles (`us.anthropic.…`, `global.anthropic.…`, ARNs naming one). */
export const isAnthropicModel = (modelId: string): boolean => /(^|[./])anthropic\./.test(modelId);

type Authorization = { bearer: string } | { keys: AwsKeys };

/**
 * The channel's own credentials win: its key pair, else its API key; a channel with neither uses
 * the process's AWS environment as the AWS SDKs do: its keys, the Bedrock API key variable, then
 * a web-identity role (IRSA) or the container's role (aws-credentials.ts). Looked up per request,
 * so rotated values are picked up; role keys are cached until shortly before they expire.
 */
async function authorizationOf(credentials: ChannelCredentials, env: NodeJS.ProcessEnv, nowMs: number): Promise<Authorization | undefined> {
  if (credentials.aws_access_key_id && credentials.aws_secret_access_key) {
    return { keys: withToken({ accessKeyId: credentials.aws_access_key_id, secretAccessKey: credentials.aws_secret_access_key }, credentials.aws_session_token) };
  }
  if (credentials.api_key) return { bearer: credentials.api_key };
  const fromEnvironment = keysFromEnvironment(env);
  if (fromEnvironment) return { keys: fromEnvironment };
  if (env.AWS_BEARER_TOKEN_BEDROCK) return { bearer: env.AWS_BEARER_TOKEN_BEDROCK };
  const fromRole = await keysFromRoleSources(env, nowMs);
  return fromRole ? { keys: fromRole } : undefined;
}

const withToken = (keys: AwsKeys, token: string | undefined): AwsKeys => (token ? { ...keys, sessionToken: token } : keys);

/**
 * The signing region: the channel's `region`, else the one in a regional endpoint's host
 * (`bedrock-runtime.eu-west-1.amazonaws.com`, VPC endpoint names included), else us-east-1.
 */
export function signingRegion(credentials: ChannelCredentials, url: URL, env: NodeJS.ProcessEnv = process.env): string {
  if (credentials.region) return credentials.region;
  const fromHost = /bedrock-runtime(?:-fips)?\.([a-z]{2}(?:-gov)?-[a-z]+-\d)\./.exec(url.hostname)?.[1];
  return fromHost ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? BEDROCK_DEFAULT_REGION;
}

/**
 * Credential headers for one call: `Authorization: Bearer` for an API key, else a SigV4 signature
 * over the method, path, query, the headers being sent and the body (@smithy/signature-v4, the
 * AWS SDKs' own signer). `host` is returned too, so the header the signature covers is the one sent.
 * A channel that cannot sign is a GatewayError (the client's envelope), never a crash.
 */
export async function authorizeBedrockRequest(credentials: ChannelCredentials, request: SignableRequest, nowMs: number, env: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  const authorization = await authorizationOf(credentials, env, nowMs);
  if (!authorization) {
    throw new GatewayError('GW_UPSTREAM_AUTH', 'The Bedrock channel has no AWS credentials (aws_access_key_id and aws_secret_access_key, api_key, or the AWS environment: keys, a web-identity role or a container role)');
  }
  if ('bearer' in authorization) return { authorization: `Bearer ${authorization.bearer}` };
  const { url } = request;
  const headers: Record<string, string> = { ...lowerCased(request.headers), host: url.host };
  try {
    const signer = new SignatureV4({ service: BEDROCK_SIGNING_SERVICE, region: signingRegion(credentials, url, env), credentials: authorization.keys, sha256: Sha256 });
    const signed = await signer.sign(
      {
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        body: request.body,
      },
      { signingDate: new Date(nowMs) },
    );
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(signed.headers)) if (headers[name] !== value || name === 'host') out[name] = value;
    return out;
  } catch (error) {
    // The signer's own message may quote what it was given; the client learns only that signing failed.
    throw new GatewayError('GW_UPSTREAM_AUTH', 'The Bedrock request could not be signed with the channel\'s AWS credentials', { cause: error });
  }
}

function lowerCased(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}
