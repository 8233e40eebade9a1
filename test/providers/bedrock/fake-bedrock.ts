import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** What the fake answers one call with: a JSON body (an error with its exception name), or event-stream frames. */
export type FakeAnswer =
  | { json: unknown; status?: number; exception?: string }
  | { frames: Buffer[]; /** Bytes per write: frames split across reads, as a network would. */ writeSize?: number };

export interface FakeCall {
  operation: string;
  modelId: string;
  /** The raw path as received (the model id percent-encoded). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Record<string, unknown>;
}

export interface FakeBedrock {
  url: string;
  calls: FakeCall[];
  close(): Promise<void>;
}

export interface FakeCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** A Bedrock API key accepted as `Authorization: Bearer`. */
  apiKey?: string;
  region: string;
}

const ROUTE = /^\/model\/([^/?]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/**
 * A Bedrock runtime on loopback that authenticates as AWS does: a SigV4 request is signed again
 * here, from the same secret, over the headers the request says it signed, its raw path and its
 * body, and anything different (signature, key id, scope, region, service, body hash, a missing or
 * wrong session token, a stale date) is 403 `InvalidSignatureException` /
 * `UnrecognizedClientException`, as Bedrock answers. A bearer must be the configured API key.
 */
export async function startFakeBedrock(credentials: FakeCredentials, answer: (call: FakeCall) => FakeAnswer): Promise<FakeBedrock> {
  const calls: FakeCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void serve(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => reject(res, 500, 'InternalServerException', String(error)));
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const route = req.method === 'POST' ? ROUTE.exec(req.url ?? '') : null;
    if (!route) return reject(res, 404, 'UnknownOperationException', 'Unknown operation');
    const problem = await authProblem(req, text, credentials);
    if (problem) return reject(res, 403, problem.exception, problem.message);
    const call: FakeCall = { operation: route[2]!, modelId: decodeURIComponent(route[1]!), path: req.url!, headers: req.headers, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    calls.push(call);
    const answered = answer(call);
    if ('json' in answered) {
      if (answered.exception) return reject(res, answered.status ?? 400, answered.exception, (answered.json as { message: string }).message);
      res.writeHead(answered.status ?? 200, { 'content-type': 'application/json', 'x-amzn-requestid': 'req-1' });
      res.end(JSON.stringify(answered.json));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req-1' });
    const bytes = Buffer.concat(answered.frames);
    const size = answered.writeSize ?? bytes.length;
    for (let at = 0; at < bytes.length; at += size) {
      res.write(bytes.subarray(at, at + size));
      if (answered.writeSize) await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reject(res: ServerResponse, status: number, exception: string, message: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.coral.service/`, 'x-amzn-requestid': 'req-1' });
  res.end(JSON.stringify({ message }));
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

async function authProblem(req: IncomingMessage, text: string, expected: FakeCredentials): Promise<{ exception: string; message: string } | undefined> {
  const authorization = header(req, 'authorization') ?? '';
  if (authorization.startsWith('Bearer ')) {
    return expected.apiKey !== undefined && authorization === `Bearer ${expected.apiKey}` ? undefined : { exception: 'UnrecognizedClientException', message: 'Invalid API Key format: Must start with pre-defined prefix' };
  }
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parsed) return { exception: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, keyId, day, region, service, signedHeaders] = parsed;
  if (keyId !== expected.accessKeyId) return { exception: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (region !== expected.region || service !== 'bedrock') return { exception: 'InvalidSignatureException', message: `Credential should be scoped to a valid region and service 'bedrock'.` };
  const amzDate = header(req, 'x-amz-date') ?? '';
  const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!when || amzDate.slice(0, 8) !== day) return { exception: 'InvalidSignatureException', message: 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.' };
  const signingDate = new Date(Date.UTC(+when[1]!, +when[2]! - 1, +when[3]!, +when[4]!, +when[5]!, +when[6]!));
  if (Math.abs(Date.now() - signingDate.getTime()) > 5 * 60_000) return { exception: 'InvalidSignatureException', message: 'Signature expired' };
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return { exception: 'InvalidSignatureException', message: 'host and x-amz-date must be signed' };
  const token = header(req, 'x-amz-security-token');
  if ((expected.sessionToken ?? undefined) !== token || (token !== undefined && !names.includes('x-amz-security-token'))) {
    return { exception: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  const bodyHash = header(req, 'x-amz-content-sha256');
  if (bodyHash !== undefined && bodyHash !== createHash('sha256').update(text).digest('hex')) {
    return { exception: 'InvalidSignatureException', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  }
  const headers: Record<string, string> = {};
  for (const name of names) headers[name] = header(req, name) ?? '';
  const url = new URL(req.url ?? '/', 'http://fake');
  const signer = new SignatureV4({ service: 'bedrock', region: expected.region, sha256: Sha256, credentials: { accessKeyId: expected.accessKeyId, secretAccessKey: expected.secretAccessKey, ...(token ? { sessionToken: token } : {}) } });
  const resigned = await signer.sign(
    { method: req.method ?? 'POST', protocol: 'http:', hostname: headers.host!.split(':')[0]!, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: text },
    { signingDate },
  );
  if (resigned.headers.authorization !== authorization) {
    return { exception: 'InvalidSignatureException', message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.' };
  }
  return undefined;
}
