import OpenAI from 'openai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { containerCredentialsUrl, stsEndpoint } from '../../../src/providers/bedrock/aws-credentials.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { converseText } from './fake-answers.js';
import { startFakeBedrock, type FakeBedrock, type FakeCredentials } from './fake-bedrock.js';
import { startFakeAwsIdentity, type FakeAwsIdentity } from './fake-aws-identity.js';

const REGION = 'eu-central-1';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/model-gateway';
const WEB_IDENTITY_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.fake-projected-service-account-token.sig';
const CONTAINER_TOKEN = 'container-agent-token-0123456789';
const ROLE_KEYS = { accessKeyId: 'ASIAFAKEROLEKEYS0001', secretAccessKey: 'role/Secret+Key/abcdefghijklmnopqrstuvwxyz01', sessionToken: 'IQoJb3JpZ2luFAKE-role-session-token-0123456789' };

const CHAIN_VARIABLES = [
  'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_ROLE_ARN', 'AWS_ROLE_SESSION_NAME',
  'AWS_ENDPOINT_URL_STS', 'AWS_ENDPOINT_URL', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_AUTHORIZATION_TOKEN', 'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
];

describe('Bedrock without channel keys (issue 30): the AWS credential chain, against a loopback STS and container endpoint', () => {
  let fake: FakeBedrock;
  let identity: FakeAwsIdentity;
  let gateway: TestGateway;
  const expected: FakeCredentials = { ...ROLE_KEYS, region: REGION };
  const saved: Record<string, string | undefined> = {};
  const dir = mkdtempSync(join(tmpdir(), 'aws-chain-'));
  const tokenFile = join(dir, 'web-identity-token');
  const containerTokenFile = join(dir, 'container-token');

  beforeAll(async () => {
    for (const name of CHAIN_VARIABLES) saved[name] = process.env[name];
    writeFileSync(tokenFile, `${WEB_IDENTITY_TOKEN}\n`);
    writeFileSync(containerTokenFile, CONTAINER_TOKEN);
    fake = await startFakeBedrock(expected, () => converseText('Hello by role'));
    identity = await startFakeAwsIdentity({ roleArn: ROLE_ARN, webIdentityToken: WEB_IDENTITY_TOKEN, containerToken: CONTAINER_TOKEN }, ROLE_KEYS);
    gateway = await startTestGateway({
      file: {
        models: [{ id: 'nova-by-role', kind: 'chat' as const }],
        channels: [{ name: 'bedrock-role', vendor: 'bedrock', base_url: fake.url, region: REGION, max_retries: 0, models: { 'nova-by-role': 'amazon.nova-pro-v1:0' } }],
      },
    });
  });

  afterEach(() => {
    for (const name of CHAIN_VARIABLES) delete process.env[name];
  });

  afterAll(async () => {
    await gateway.stop();
    await fake.close();
    await identity.close();
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  });

  const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const ask = () => openai().chat.completions.create({ model: 'nova-by-role', messages: [{ role: 'user', content: 'Hi' }] });
  const useWebIdentity = (file = tokenFile) => {
    for (const name of CHAIN_VARIABLES) delete process.env[name];
    Object.assign(process.env, { AWS_WEB_IDENTITY_TOKEN_FILE: file, AWS_ROLE_ARN: ROLE_ARN, AWS_ROLE_SESSION_NAME: 'gateway-test', AWS_ENDPOINT_URL_STS: identity.url });
  };

  it('web identity (IRSA): the token file is exchanged at STS once, the role keys sign every call with their session token', async () => {
    useWebIdentity();
    const before = identity.stsIssued.length;
    expect((await ask()).choices[0]!.message.content).toBe('Hello by role');
    await ask();
    expect(identity.stsIssued.length - before).toBe(1);
    expect(identity.stsIssued.at(-1)).toMatchObject({ Action: 'AssumeRoleWithWebIdentity', RoleArn: ROLE_ARN, RoleSessionName: 'gateway-test', WebIdentityToken: WEB_IDENTITY_TOKEN });
    const sent = fake.calls.at(-1)!;
    expect(sent.headers['x-amz-security-token']).toBe(ROLE_KEYS.sessionToken);
    expect(sent.headers.authorization).toContain(`Credential=${ROLE_KEYS.accessKeyId}/`);
  });

  it('role keys are fetched again before they expire, once for concurrent requests, not per request', async () => {
    useWebIdentity();
    // Keys cached by the test above live an hour: a fresh source (another token file path) starts short-lived keys.
    const shortLived = join(dir, 'short-lived-token');
    writeFileSync(shortLived, WEB_IDENTITY_TOKEN);
    process.env.AWS_WEB_IDENTITY_TOKEN_FILE = shortLived;
    identity.lifetimeS = 4;
    const before = identity.stsIssued.length;
    await ask();
    await ask();
    expect(identity.stsIssued.length - before).toBe(1);
    // Past the refresh point (a quarter of a short lifetime early: 3 s), before the keys expire.
    await new Promise((resolve) => setTimeout(resolve, 3200));
    await Promise.all([ask(), ask(), ask()]);
    expect(identity.stsIssued.length - before).toBe(2);
    identity.lifetimeS = 3600;
  });

  it('STS refusing the web identity token is a 502 upstream-auth error naming its code, nothing of the token shown', async () => {
    const wrong = join(dir, 'wrong-token');
    writeFileSync(wrong, 'not-the-projected-token-0123456789');
    useWebIdentity(wrong);
    const response = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-by-role', messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('upstream_auth_failed');
    expect(response.json.error.message).toContain('InvalidIdentityToken');
    expect(response.text).not.toContain('not-the-projected-token');
    expect(response.text).not.toContain(ROLE_ARN);
  });

  it('container credentials (ECS / EKS Pod Identity): the full URI with the agent token from its file', async () => {
    Object.assign(process.env, { AWS_CONTAINER_CREDENTIALS_FULL_URI: `${identity.url}/creds`, AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: containerTokenFile });
    const before = identity.containerIssued;
    expect((await ask()).choices[0]!.message.content).toBe('Hello by role');
    await ask();
    expect(identity.containerIssued - before).toBe(1);
    expect(fake.calls.at(-1)!.headers['x-amz-security-token']).toBe(ROLE_KEYS.sessionToken);
  });

  it('a container endpoint refusing the agent token is a 502, never a 500', async () => {
    Object.assign(process.env, { AWS_CONTAINER_CREDENTIALS_FULL_URI: `${identity.url}/creds?other`, AWS_CONTAINER_AUTHORIZATION_TOKEN: 'wrong-agent-token' });
    const response = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-by-role', messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('upstream_auth_failed');
    expect(response.text).not.toContain('wrong-agent-token');
  });

  it('environment keys come first; with no source at all the channel says what it lacks', async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIAWRONGENVKEY00001', AWS_SECRET_ACCESS_KEY: 'env-secret', AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile, AWS_ROLE_ARN: ROLE_ARN, AWS_ENDPOINT_URL_STS: identity.url });
    const withEnvKeys = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-by-role', messages: [{ role: 'user', content: 'Hi' }] });
    // The fake knows only the role's keys: the environment's were used, and refused.
    expect(withEnvKeys.status).toBe(502);
    expect(withEnvKeys.text).not.toContain('env-secret');
    for (const name of CHAIN_VARIABLES) delete process.env[name];
    const none = await call(gateway, 'POST', '/v1/chat/completions', { model: 'nova-by-role', messages: [{ role: 'user', content: 'Hi' }] });
    expect(none.status).toBe(502);
    expect(none.json.error.message).toContain('web-identity role');
  });

  it('where the chain looks: the ECS agent for a relative URI, only local agents over plain http, STS regional by default', () => {
    expect(containerCredentialsUrl({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/abc' })).toBe('http://169.254.170.2/v2/credentials/abc');
    expect(containerCredentialsUrl({ AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://169.254.170.23/v1/credentials' })).toBe('http://169.254.170.23/v1/credentials');
    expect(() => containerCredentialsUrl({ AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://metadata.example.com/creds' })).toThrow(/https or name a loopback/);
    expect(containerCredentialsUrl({})).toBeUndefined();
    expect(stsEndpoint({ AWS_REGION: 'eu-west-1' })).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(stsEndpoint({})).toBe('https://sts.amazonaws.com');
  });
});
