import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Azure OpenAI resource and Entra ID sign-in host on loopback, enforcing what Azure
 * enforces (clouds.md §1): `api-key` or an Entra bearer it issued (and that has not expired),
 * `api-version` on every deployment-form path and none required on the v1 form, the deployment
 * in the path or `model`; answers with Azure's filter annotations and error bodies.
 */
export const AZURE_KEY = 'azure-key-0123456789abcdef';
export const API_VERSION = '2024-10-21';
export const RESPONSES_API_VERSION = '2025-03-01-preview';
export const ENTRA = { tenant: 'tenant-1111', clientId: 'client-2222', clientSecret: 'entra-secret-3333-abcdef' };
/** A second tenant of the same app registration (a fresh token cache key in the tests). */
export const OTHER_TENANT = 'tenant-4444';
/** Deployments this resource has, and the model each runs. */
const DEPLOYMENTS = new Set(['gpt4o-prod', 'filtered', 'busy', 'embed-small', 'image-gen', 'echo-auth']);
export const USAGE = { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 };

export interface FakeAzure {
  url: string;
  mints: number;
  /** Every API request: path, query, auth kind, body. */
  seen: { path: string; query: Record<string, string>; auth: 'api-key' | 'bearer'; body: any }[];
  tokenLifetimeS: number;
  /** Every Entra token it issued. */
  issued: string[];
  close(): Promise<void>;
}

const FILTER_OK = { hate: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' } };

export async function startFakeAzure(): Promise<FakeAzure> {
  const tokens = new Map<string, number>();
  let busyCalls = 0;
  const fake: FakeAzure = {
    url: '',
    mints: 0,
    seen: [],
    tokenLifetimeS: 3600,
    issued: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const error = (res: ServerResponse, status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'apim-request-id': 'req-1', ...headers });
    res.end(JSON.stringify({ error: { code, message, param: null, type: null, ...extra } }));
  };
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'apim-request-id': 'req-1' });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, 'http://fake');
    const query = Object.fromEntries(url.searchParams);

    // Entra ID: the client-credentials grant for Azure AI services.
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (token) {
      const form = new URLSearchParams(text);
      if ((token[1] !== ENTRA.tenant && token[1] !== OTHER_TENANT) || form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== ENTRA.clientId || form.get('client_secret') !== ENTRA.clientSecret || form.get('scope') !== 'https://cognitiveservices.azure.com/.default') {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_client', error_description: `AADSTS7000215: Invalid client secret provided for ${form.get('client_id')}` }));
        return;
      }
      fake.mints++;
      const issued = `entra-token-${fake.mints}-${Math.random().toString(36).slice(2)}`;
      tokens.set(issued, Date.now() + fake.tokenLifetimeS * 1000);
      fake.issued.push(issued);
      json(res, { token_type: 'Bearer', expires_in: fake.tokenLifetimeS, ext_expires_in: fake.tokenLifetimeS, access_token: issued });
      return;
    }

    // Either header carries the key (Microsoft's v1 samples send it as a bearer); a bearer may be an Entra token.
    const bearer = req.headers.authorization?.replace(/^Bearer /, '');
    const tokenExpiry = bearer ? tokens.get(bearer) : undefined;
    const auth = req.headers['api-key'] === AZURE_KEY ? 'api-key' : bearer === AZURE_KEY || (tokenExpiry !== undefined && tokenExpiry > Date.now()) ? 'bearer' : undefined;
    if (!auth) return error(res, 401, '401', 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.');
    const body = text ? JSON.parse(text) : undefined;
    fake.seen.push({ path: url.pathname, query, auth, body });

    let op: string;
    let deployment: string;
    const classic = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings|images\/generations)$/.exec(url.pathname);
    const v1 = /^\/openai\/v1\/(chat\/completions|embeddings|images\/generations|responses)$/.exec(url.pathname);
    if (classic) {
      if (query['api-version'] !== API_VERSION) return error(res, 404, '404', 'Resource not found');
      deployment = decodeURIComponent(classic[1]!);
      op = classic[2]!;
    } else if (url.pathname === '/openai/responses') {
      if (query['api-version'] !== RESPONSES_API_VERSION) return error(res, 400, 'BadRequest', 'API version not supported');
      deployment = body?.model;
      op = 'responses';
    } else if (v1) {
      if (query['api-version'] !== undefined && query['api-version'] !== 'v1' && query['api-version'] !== 'preview') return error(res, 400, 'BadRequest', 'API version not supported');
      deployment = body?.model;
      op = v1[1]!;
    } else {
      return error(res, 404, '404', 'Resource not found');
    }
    if (!DEPLOYMENTS.has(deployment)) return error(res, 404, 'DeploymentNotFound', 'The API deployment for this resource does not exist.');

    // A deployment whose errors quote the credential it got (issue 44: a minted token is masked too).
    if (deployment === 'echo-auth') return error(res, 400, 'BadRequest', `Token ${bearer} may not call this deployment (headers ${JSON.stringify(req.headers)})`);
    if (deployment === 'busy' && busyCalls++ % 2 === 0) {
      return error(res, 429, '429', 'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded call rate limit. Please retry after 30 seconds.', {}, { 'retry-after': '30', 'retry-after-ms': '20' });
    }
    const prompt = JSON.stringify(body?.messages ?? body?.input ?? body?.prompt ?? '');
    if (prompt.includes('forbidden')) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        error: {
          message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
          type: null, param: 'prompt', code: 'content_filter', status: 400,
          innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { ...FILTER_OK, violence: { filtered: true, severity: 'medium' }, jailbreak: { filtered: false, detected: false } } },
        },
      }));
      return;
    }

    if (op === 'chat/completions') return chat(res, deployment, body);
    if (op === 'embeddings') {
      const inputs: string[] = typeof body.input === 'string' ? [body.input] : body.input;
      return json(res, { object: 'list', model: 'text-embedding-3-small', data: inputs.map((_t, index) => ({ object: 'embedding', index, embedding: [0.25, -0.5, index] })), usage: { prompt_tokens: 3 * inputs.length, total_tokens: 3 * inputs.length } });
    }
    if (op === 'images/generations') {
      if (body.n !== 1) return error(res, 400, 'invalid_value', 'n must be 1');
      return json(res, { created: 1, data: [{ b64_json: Buffer.from('png-bytes').toString('base64'), content_filter_results: FILTER_OK }], usage: { input_tokens: 9, output_tokens: 272, total_tokens: 281 } });
    }
    return json(res, {
      id: 'resp_az1', object: 'response', created_at: 1, status: 'completed', model: deployment,
      output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello from Azure', annotations: [] }] }],
      usage: { input_tokens: 11, output_tokens: 5, total_tokens: 16, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  function chat(res: ServerResponse, deployment: string, body: any): void {
    const finish = deployment === 'filtered' ? 'content_filter' : 'stop';
    const choiceFilter = deployment === 'filtered' ? { ...FILTER_OK, sexual: { filtered: true, severity: 'high' } } : FILTER_OK;
    const promptFilter = [{ prompt_index: 0, content_filter_results: { ...FILTER_OK, jailbreak: { filtered: false, detected: false } } }];
    if (!body.stream) {
      return json(res, {
        id: 'chatcmpl-az', object: 'chat.completion', created: 1, model: 'gpt-4o-2024-11-20', system_fingerprint: 'fp_az',
        prompt_filter_results: promptFilter,
        choices: [{ index: 0, finish_reason: finish, message: { role: 'assistant', content: finish === 'stop' ? 'Hello from Azure' : null, refusal: null }, content_filter_results: choiceFilter, logprobs: null }],
        usage: USAGE,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'apim-request-id': 'req-1' });
    const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    const base = { id: 'chatcmpl-az', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-2024-11-20', system_fingerprint: 'fp_az' };
    // Azure's first chunk: no choices, only the prompt's filter results.
    send({ id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: promptFilter });
    send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }] });
    if (finish === 'stop') for (const piece of ['Hello', ' from', ' Azure']) send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null, content_filter_results: FILTER_OK }] });
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish, content_filter_results: choiceFilter }] });
    if (body.stream_options?.include_usage) send({ ...base, choices: [], usage: USAGE });
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
