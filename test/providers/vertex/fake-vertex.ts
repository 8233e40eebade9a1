import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';

/**
 * A fake Vertex AI and Google OAuth token endpoint on loopback (clouds.md §3). The token endpoint
 * checks the `jwt-bearer` assertion as Google does: RS256 signature against the service
 * account's public key, `iss`, `aud` (its own URL), `scope`, and a lifetime of at most an hour;
 * the API then takes only the bearer it issued (until it expires) or the express-mode API key.
 */
export const PROJECT = 'acme-prod';
export const REGION = 'us-central1';
export const CLIENT_EMAIL = 'gateway@acme-prod.iam.gserviceaccount.com';
export const VERTEX_API_KEY = 'AQ.vertex-express-key-0123';
export const GEMINI_USAGE = { promptTokenCount: 9, candidatesTokenCount: 4, totalTokenCount: 13 };
export const CLAUDE_USAGE = { input_tokens: 12, output_tokens: 6 };

export interface FakeVertex {
  url: string;
  /** The service-account JSON key a channel is given (its token_uri points here). */
  serviceAccountJson: string;
  mints: number;
  rejectedAssertions: string[];
  seen: { path: string; query: Record<string, string>; auth: string; body: any; beta: string | undefined }[];
  tokenLifetimeS: number;
  close(): Promise<void>;
}

const googleError = (res: ServerResponse, code: number, status: string, message: string) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { code, message, status } }));
};

function checkAssertion(assertion: string, publicKey: KeyObject, tokenUri: string): string | undefined {
  const parts = assertion.split('.');
  if (parts.length !== 3) return 'not a JWT';
  const [header, claims, signature] = parts as [string, string, string];
  const head = JSON.parse(Buffer.from(header, 'base64url').toString());
  if (head.alg !== 'RS256' || head.typ !== 'JWT') return 'alg';
  if (!verify('sha256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url'))) return 'signature';
  const body = JSON.parse(Buffer.from(claims, 'base64url').toString());
  const now = Math.floor(Date.now() / 1000);
  if (body.iss !== CLIENT_EMAIL) return 'iss';
  if (body.aud !== tokenUri) return 'aud';
  if (body.scope !== 'https://www.googleapis.com/auth/cloud-platform') return 'scope';
  if (typeof body.iat !== 'number' || Math.abs(body.iat - now) > 300) return 'iat';
  if (typeof body.exp !== 'number' || body.exp <= body.iat || body.exp - body.iat > 3600) return 'exp';
  return undefined;
}

export async function startFakeVertex(): Promise<FakeVertex> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const tokens = new Map<string, number>();
  const fake: FakeVertex = {
    url: '',
    serviceAccountJson: '',
    mints: 0,
    rejectedAssertions: [],
    seen: [],
    tokenLifetimeS: 3599,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, 'http://fake');
    const query = Object.fromEntries(url.searchParams);

    if (url.pathname === '/token') {
      const form = new URLSearchParams(text);
      const problem = form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' ? 'grant_type' : checkAssertion(form.get('assertion') ?? '', publicKey, `${fake.url}/token`);
      if (problem) {
        fake.rejectedAssertions.push(problem);
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_grant', error_description: `Invalid JWT Signature for ${CLIENT_EMAIL}.` }));
        return;
      }
      fake.mints++;
      const issued = `ya29.fake-${fake.mints}-${Math.random().toString(36).slice(2)}`;
      tokens.set(issued, Date.now() + fake.tokenLifetimeS * 1000);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: issued, expires_in: fake.tokenLifetimeS, token_type: 'Bearer' }));
      return;
    }

    const bearer = req.headers.authorization?.replace(/^Bearer /, '');
    const expiry = bearer ? tokens.get(bearer) : undefined;
    const express = req.headers['x-goog-api-key'] === VERTEX_API_KEY;
    if (!express && !(expiry !== undefined && expiry > Date.now())) {
      return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
    }
    const body = text ? JSON.parse(text) : undefined;
    fake.seen.push({ path: url.pathname, query, auth: express ? 'api-key' : 'bearer', body, beta: req.headers['anthropic-beta'] as string | undefined });

    const scoped = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
    const expressPath = /^\/v1\/publishers\/(google)\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
    let publisher: string;
    let model: string;
    let method: string;
    if (scoped && !express) {
      if (scoped[1] !== PROJECT || scoped[2] !== REGION) return googleError(res, 403, 'PERMISSION_DENIED', `Permission denied on resource project ${scoped[1]}.`);
      [publisher, model, method] = [scoped[3]!, decodeURIComponent(scoped[4]!), scoped[5]!];
    } else if (expressPath && express) {
      [publisher, model, method] = [expressPath[1]!, expressPath[2]!, expressPath[3]!];
    } else {
      return googleError(res, 404, 'NOT_FOUND', 'The requested URL was not found on this server.');
    }

    if (publisher === 'google' && method === 'predict') {
      if (!model.startsWith('text-embedding-')) return googleError(res, 404, 'NOT_FOUND', `Publisher Model \`${model}\` not found.`);
      const instances = body?.instances;
      if (!Array.isArray(instances) || instances.length > 250 || instances.some((i: { content?: unknown }) => typeof i.content !== 'string')) return googleError(res, 400, 'INVALID_ARGUMENT', 'instances: each needs content');
      const dimensions = body.parameters?.outputDimensionality ?? 4;
      const predictions = instances.map((i: { content: string }) => ({ embeddings: { values: Array.from({ length: dimensions }, (_v, k) => (i.content.length + k) / 8), statistics: { token_count: i.content.split(' ').length, truncated: false } } }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ predictions, metadata: { billableCharacterCount: 10 } }));
      return;
    }
    if (publisher === 'google') {
      if (!model.startsWith('gemini-')) return googleError(res, 404, 'NOT_FOUND', `Publisher Model \`${model}\` not found.`);
      if (!Array.isArray(body?.contents) || body.contents.some((c: { role?: string }) => c.role !== 'user' && c.role !== 'model')) return googleError(res, 400, 'INVALID_ARGUMENT', 'Please use a valid role: user, model.');
      const candidate = (text: string, done: boolean) => ({ content: { role: 'model', parts: [{ text }] }, ...(done ? { finishReason: 'STOP' } : {}) });
      if (method === 'generateContent') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [candidate('Hello from Vertex', true)], usageMetadata: GEMINI_USAGE, modelVersion: model, responseId: 'vx-1' }));
        return;
      }
      if (method !== 'streamGenerateContent' || query.alt !== 'sse') return googleError(res, 400, 'INVALID_ARGUMENT', 'stream needs alt=sse here');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ candidates: [candidate('Hello', false)], modelVersion: model })}\r\n\r\n`);
      res.end(`data: ${JSON.stringify({ candidates: [candidate(' from Vertex', true)], usageMetadata: GEMINI_USAGE, modelVersion: model })}\r\n\r\n`);
      return;
    }

    // Claude: rawPredict takes the Messages body without `model` and with Vertex's anthropic_version.
    const anthropicError = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }));
    };
    if (body?.anthropic_version !== 'vertex-2023-10-16') return anthropicError(400, 'anthropic_version: Field required');
    if ('model' in body) return anthropicError(400, 'model: Extra inputs are not permitted');
    if (typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) return anthropicError(400, 'max_tokens: Field required');
    if ((method === 'streamRawPredict') !== (body.stream === true)) return anthropicError(400, 'stream must match the method');
    const message = { id: 'msg_vrtx_1', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: 'Hello from Claude on Vertex' }], stop_reason: 'end_turn', stop_sequence: null, usage: CLAUDE_USAGE };
    if (method === 'rawPredict') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = (name: string, data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    event('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: CLAUDE_USAGE.input_tokens, output_tokens: 1 } } });
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const piece of ['Hello from', ' Claude on Vertex']) event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    event('content_block_stop', { type: 'content_block_stop', index: 0 });
    event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: CLAUDE_USAGE.output_tokens } });
    event('message_stop', { type: 'message_stop' });
    res.end();
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.serviceAccountJson = JSON.stringify({
    type: 'service_account',
    project_id: PROJECT,
    private_key_id: 'key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: CLIENT_EMAIL,
    client_id: '1234567890',
    token_uri: `${fake.url}/token`,
  });
  return fake;
}
