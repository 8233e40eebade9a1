/**
 * AWS's standard credential chain for a Bedrock channel that holds no keys of its own, in the
 * AWS SDKs' order (https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html):
 *   1. environment: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN);
 *   2. web identity (EKS IRSA): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN, exchanged through STS
 *      AssumeRoleWithWebIdentity (unsigned; AWS_ENDPOINT_URL_STS overrides the endpoint);
 *   3. container (ECS task role, EKS Pod Identity): AWS_CONTAINER_CREDENTIALS_RELATIVE_URI on
 *      169.254.170.2, or AWS_CONTAINER_CREDENTIALS_FULL_URI, with the authorization token from
 *      AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE or AWS_CONTAINER_AUTHORIZATION_TOKEN.
 * Temporary keys are cached per source and fetched again shortly before they expire (one fetch
 * for all concurrent requests). Environment variables are read per request, files per fetch, so
 * rotated tokens are picked up. Failures name the source and AWS's error code, never a secret.
 */
import { readFileSync } from 'node:fs';
import { GatewayError } from '../../errors.js';
import { MINT_TIMEOUT_MS, MintedTokenCache, type MintedToken } from '../minted-token.js';

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The ECS agent's credential host for a relative URI. */
const ECS_CREDENTIALS_HOST = 'http://169.254.170.2';
/** Hosts a plain-http full URI may name (the SDKs' rule): loopback, the ECS and EKS Pod Identity agents. */
const PLAIN_HTTP_HOSTS = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|169\.254\.170\.2|169\.254\.170\.23|\[fd00:ec2::23\])$/;
const STS_VERSION = '2011-06-15';
/** Fetched keys with no Expiration are kept this long. */
const UNDATED_LIFETIME_MS = 60 * 60_000;

const roleKeys = new MintedTokenCache<AwsKeys>();

/** Step 1: the keys in the environment, or undefined. */
export function keysFromEnvironment(env: NodeJS.ProcessEnv): AwsKeys | undefined {
  if (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) return undefined;
  return { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

/** Steps 2 and 3: a role's temporary keys (cached), or undefined when the environment names no role source. */
export async function keysFromRoleSources(env: NodeJS.ProcessEnv, nowMs: number): Promise<AwsKeys | undefined> {
  const tokenFile = env.AWS_WEB_IDENTITY_TOKEN_FILE;
  const roleArn = env.AWS_ROLE_ARN;
  if (tokenFile && roleArn) {
    const sts = stsEndpoint(env);
    return roleKeys.tokenFor(['web-identity', sts, roleArn, tokenFile], nowMs, () => assumeRoleWithWebIdentity(sts, roleArn, tokenFile, env.AWS_ROLE_SESSION_NAME, nowMs));
  }
  const url = containerCredentialsUrl(env);
  if (url) return roleKeys.tokenFor(['container', url], nowMs, () => fetchContainerCredentials(url, env, nowMs));
  return undefined;
}

/** STS's regional endpoint (the SDKs' default), or AWS_ENDPOINT_URL_STS / AWS_ENDPOINT_URL. */
export function stsEndpoint(env: NodeJS.ProcessEnv): string {
  const override = env.AWS_ENDPOINT_URL_STS ?? env.AWS_ENDPOINT_URL;
  if (override) return override.replace(/\/$/, '');
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  return region ? `https://sts.${region}.amazonaws.com` : 'https://sts.amazonaws.com';
}

/** The container credential URL, or undefined; a full URI on plain http must name a local agent. */
export function containerCredentialsUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI) return `${ECS_CREDENTIALS_HOST}${env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI}`;
  const full = env.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  if (!full) return undefined;
  let url: URL;
  try {
    url = new URL(full);
  } catch {
    throw new GatewayError('GW_UPSTREAM_AUTH', 'AWS_CONTAINER_CREDENTIALS_FULL_URI is not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && PLAIN_HTTP_HOSTS.test(url.hostname))) {
    throw new GatewayError('GW_UPSTREAM_AUTH', 'AWS_CONTAINER_CREDENTIALS_FULL_URI must be https or name a loopback or container-agent host');
  }
  return full;
}

async function assumeRoleWithWebIdentity(sts: string, roleArn: string, tokenFile: string, sessionName: string | undefined, nowMs: number): Promise<MintedToken<AwsKeys>> {
  let webIdentityToken: string;
  try {
    webIdentityToken = readFileSync(tokenFile, 'utf8').trim();
  } catch {
    throw new GatewayError('GW_UPSTREAM_AUTH', 'AWS_WEB_IDENTITY_TOKEN_FILE cannot be read');
  }
  const form = new URLSearchParams({
    Action: 'AssumeRoleWithWebIdentity',
    Version: STS_VERSION,
    RoleArn: roleArn,
    RoleSessionName: sessionName || `model-gateway-${nowMs}`,
    WebIdentityToken: webIdentityToken,
  });
  const text = await send('AWS STS', `${sts}/`, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'text/xml' }, form.toString());
  if (!text.ok) throw refused('AWS STS', text.status, xmlField(text.body, 'Code'));
  const keys = { accessKeyId: xmlField(text.body, 'AccessKeyId'), secretAccessKey: xmlField(text.body, 'SecretAccessKey'), sessionToken: xmlField(text.body, 'SessionToken') };
  return minted('AWS STS', keys, xmlField(text.body, 'Expiration'), nowMs);
}

async function fetchContainerCredentials(url: string, env: NodeJS.ProcessEnv, nowMs: number): Promise<MintedToken<AwsKeys>> {
  const token = containerAuthorizationToken(env);
  const answer = await send('the container credential endpoint', url, { accept: 'application/json', ...(token ? { authorization: token } : {}) });
  if (!answer.ok) throw refused('the container credential endpoint', answer.status, undefined);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    throw new GatewayError('GW_UPSTREAM_AUTH', 'The container credential endpoint answered no JSON');
  }
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
  return minted('the container credential endpoint', { accessKeyId: text(body.AccessKeyId), secretAccessKey: text(body.SecretAccessKey), sessionToken: text(body.Token) }, text(body.Expiration), nowMs);
}

function containerAuthorizationToken(env: NodeJS.ProcessEnv): string | undefined {
  const file = env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
  if (file) {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      throw new GatewayError('GW_UPSTREAM_AUTH', 'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE cannot be read');
    }
  }
  return env.AWS_CONTAINER_AUTHORIZATION_TOKEN || undefined;
}

function minted(source: string, keys: { accessKeyId?: string | undefined; secretAccessKey?: string | undefined; sessionToken?: string | undefined }, expiration: string | undefined, nowMs: number): MintedToken<AwsKeys> {
  if (!keys.accessKeyId || !keys.secretAccessKey) throw new GatewayError('GW_UPSTREAM_AUTH', `${source} answered without AWS credentials`);
  const expiresAtMs = expiration ? Date.parse(expiration) : Number.NaN;
  return {
    token: { accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey, ...(keys.sessionToken ? { sessionToken: keys.sessionToken } : {}) },
    expiresAtMs: Number.isFinite(expiresAtMs) ? expiresAtMs : nowMs + UNDATED_LIFETIME_MS,
  };
}

/** GET when there is no body (the container endpoint), else POST; the answer's text, never thrown on a status. */
async function send(source: string, url: string, headers: Record<string, string>, body?: string): Promise<{ ok: boolean; status: number; body: string }> {
  try {
    const response = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(MINT_TIMEOUT_MS) });
    return { ok: response.ok, status: response.status, body: await response.text() };
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_AUTH', `Could not reach ${source} to obtain AWS credentials`, { cause: error });
  }
}

/** Only AWS's error code (`InvalidIdentityToken`, `AccessDenied`): its message may quote the role or the token's claims. */
const refused = (source: string, status: number, code: string | undefined): GatewayError =>
  new GatewayError('GW_UPSTREAM_AUTH', `${source} refused to issue AWS credentials (${code && /^[A-Za-z.]{1,64}$/.test(code) ? code : `HTTP ${status}`})`);

/** One element's text from STS's XML answer (the fields read are plain text, no nesting of the same name). */
function xmlField(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match ? match[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&') : undefined;
}
