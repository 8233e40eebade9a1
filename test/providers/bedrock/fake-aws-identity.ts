import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface IssuedKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

export interface FakeAwsIdentity {
  url: string;
  /** STS AssumeRoleWithWebIdentity calls that issued keys, and the forms they sent. */
  stsIssued: Array<Record<string, string>>;
  /** Container credential fetches that issued keys. */
  containerIssued: number;
  /** Lifetime of the keys issued from now on. */
  lifetimeS: number;
  close(): Promise<void>;
}

/**
 * AWS's two role-credential services on loopback, strict as the real ones:
 *   POST /         STS AssumeRoleWithWebIdentity (form, unsigned): the role ARN and the web
 *                  identity token must be the expected ones, else `InvalidIdentityToken` /
 *                  `AccessDenied` in STS's XML error; answers STS's XML with an Expiration.
 *   GET /creds     the container credential endpoint: `Authorization` must be the agent's token;
 *                  answers `{AccessKeyId, SecretAccessKey, Token, Expiration}`.
 */
export async function startFakeAwsIdentity(expected: { roleArn: string; webIdentityToken: string; containerToken: string }, keys: IssuedKeys): Promise<FakeAwsIdentity> {
  const state: FakeAwsIdentity = { url: '', stsIssued: [], containerIssued: 0, lifetimeS: 3600, close: async () => {} };
  const expiration = () => new Date(Date.now() + state.lifetimeS * 1000).toISOString();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/creds') {
        if (req.headers.authorization !== expected.containerToken) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'unauthorized' }));
          return;
        }
        state.containerIssued += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ AccessKeyId: keys.accessKeyId, SecretAccessKey: keys.secretAccessKey, Token: keys.sessionToken, Expiration: expiration(), RoleArn: expected.roleArn }));
        return;
      }
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      if (req.method !== 'POST' || req.url !== '/' || form.Action !== 'AssumeRoleWithWebIdentity' || form.Version !== '2011-06-15' || !form.RoleSessionName) {
        return stsError(res, 400, 'InvalidAction', 'Could not find operation');
      }
      if (form.WebIdentityToken !== expected.webIdentityToken) return stsError(res, 400, 'InvalidIdentityToken', `Couldn't retrieve verification key from your identity provider for token ${form.WebIdentityToken}`);
      if (form.RoleArn !== expected.roleArn) return stsError(res, 403, 'AccessDenied', `Not authorized to perform sts:AssumeRoleWithWebIdentity on ${form.RoleArn}`);
      state.stsIssued.push(form);
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(`<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:default:gateway</SubjectFromWebIdentityToken>
    <AssumedRoleUser><Arn>${expected.roleArn}/${form.RoleSessionName}</Arn><AssumedRoleId>AROAFAKE:${form.RoleSessionName}</AssumedRoleId></AssumedRoleUser>
    <Credentials>
      <SessionToken>${keys.sessionToken}</SessionToken>
      <SecretAccessKey>${keys.secretAccessKey}</SecretAccessKey>
      <Expiration>${expiration()}</Expiration>
      <AccessKeyId>${keys.accessKeyId}</AccessKeyId>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

function stsError(res: import('node:http').ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml' });
  res.end(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>req-1</RequestId></ErrorResponse>`);
}
