import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../helpers/admin.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { API_VERSION, AZURE_KEY, ENTRA, OTHER_TENANT, RESPONSES_API_VERSION, startFakeAzure, USAGE, type FakeAzure } from './fake-azure.js';

/**
 * Issue 30: Azure OpenAI channels, deployment form with `api-key` and v1 form with Entra ID
 * tokens, against a fake resource that refuses anything else; every client surface through them.
 */
describe('vendor azure-openai (issue 30)', () => {
  let azure: FakeAzure;
  let gateway: TestGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    azure = await startFakeAzure();
    gateway = await startTestGateway({
      file: {
        models: [
          ...['az-gpt4o', 'az-filtered', 'az-busy', 'azv1-gpt4o', 'azv1-resp', 'az-resp', 'az-broken', 'az-runtime', 'az-sim', 'azv1-echo'].map((id) => ({ id, kind: 'chat' as const })),
          { id: 'az-embed', kind: 'embedding' },
          { id: 'az-image', kind: 'image' },
        ],
        channels: [
          {
            name: 'azure-classic', vendor: 'azure-openai', base_url: azure.url, api_key: AZURE_KEY, api_version: API_VERSION,
            models: { 'az-gpt4o': 'gpt4o-prod', 'az-filtered': 'filtered', 'az-busy': 'busy', 'az-embed': 'embed-small', 'az-image': 'image-gen' },
          },
          {
            name: 'azure-v1-entra', vendor: 'azure-openai', base_url: azure.url, authority_host: azure.url,
            tenant_id: ENTRA.tenant, client_id: ENTRA.clientId, client_secret: ENTRA.clientSecret,
            models: { 'azv1-gpt4o': 'gpt4o-prod', 'azv1-resp': 'gpt4o-prod', 'azv1-echo': 'echo-auth' },
          },
          { name: 'azure-sim', vendor: 'azure-openai', models: { 'az-sim': 'gpt-4o' } },
          { name: 'azure-preview', vendor: 'azure-openai', base_url: azure.url, api_key: AZURE_KEY, api_version: RESPONSES_API_VERSION, models: { 'az-resp': 'gpt4o-prod' } },
          {
            name: 'azure-wrong-secret', vendor: 'azure-openai', base_url: azure.url, authority_host: azure.url, max_retries: 0,
            tenant_id: ENTRA.tenant, client_id: ENTRA.clientId, client_secret: 'not-the-secret-at-all', models: { 'az-broken': 'gpt4o-prod' },
          },
        ],
      },
    });
    openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.stop();
    await azure?.close();
  });

  it('chat completions on the deployment form: api-key header, api-version, deployment in the path; exact usage', async () => {
    const completion = await openai.chat.completions.create({ model: 'az-gpt4o', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from Azure');
    expect(completion.model).toBe('az-gpt4o');
    expect(completion.usage).toMatchObject(USAGE);
    const sent = azure.seen.at(-1)!;
    expect(sent).toMatchObject({ path: '/openai/deployments/gpt4o-prod/chat/completions', query: { 'api-version': API_VERSION }, auth: 'api-key' });
  });

  it('streams through Azure filter-only chunks (choices: []) with exact usage', async () => {
    const stream = await openai.chat.completions.create({ model: 'az-gpt4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }] });
    let text = '';
    let usage: unknown;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from Azure');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject(USAGE);
  });

  it('v1 form with an Entra ID token: minted once for concurrent requests, sent as a bearer, no api-version', async () => {
    const before = azure.mints;
    const answers = await Promise.all(Array.from({ length: 5 }, () => openai.chat.completions.create({ model: 'azv1-gpt4o', messages: [{ role: 'user', content: 'Hi' }] })));
    expect(answers.every((a) => a.choices[0]!.message.content === 'Hello from Azure')).toBe(true);
    expect(azure.mints - before).toBe(1);
    const sent = azure.seen.at(-1)!;
    expect(sent).toMatchObject({ path: '/openai/v1/chat/completions', auth: 'bearer', query: {} });
    expect(sent.body.model).toBe('gpt4o-prod');
  });

  it('an Entra token about to expire is renewed once, not per request', async () => {
    // A fresh channel's credentials (cache key) with a 4 s token: renewed a quarter before it expires (at 3 s).
    azure.tokenLifetimeS = 4;
    const patched = await admin(gateway, 'PATCH', '/channels/azure-v1-entra', { tenant_id: OTHER_TENANT });
    expect(patched.status, patched.text).toBe(200);
    const ask = () => openai.chat.completions.create({ model: 'azv1-gpt4o', messages: [{ role: 'user', content: 'Hi' }] });
    const before = azure.mints;
    await ask();
    await ask();
    const firstMints = azure.mints - before;
    // Past the renewal point, still before expiry: renewed early, once for the three requests.
    await new Promise((resolve) => setTimeout(resolve, 3200));
    await ask();
    await ask();
    await ask();
    expect(firstMints).toBe(1);
    expect(azure.mints - before - firstMints).toBe(1);
    azure.tokenLifetimeS = 3600;
  });

  it('a refused Entra secret is a 502 upstream-auth error in the client envelope, the secret never shown', async () => {
    const response = await call(gateway, 'POST', '/v1/chat/completions', { model: 'az-broken', messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('upstream_auth_failed');
    expect(response.json.error.message).toContain('invalid_client');
    expect(response.text).not.toContain('not-the-secret-at-all');
    expect(response.text).not.toContain(ENTRA.clientId);
  });

  it('an upstream error quoting the minted Entra token shows it to no client, request log or channel view (issue 44)', async () => {
    const response = await call(gateway, 'POST', '/v1/chat/completions', { model: 'azv1-echo', messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.status).toBe(400);
    expect(azure.issued.length).toBeGreaterThan(0);
    const entries = await admin(gateway, 'GET', '/requests?limit=1');
    const detail = await admin(gateway, 'GET', `/requests/${entries.json.data[0].id}`);
    expect(detail.status).toBe(200);
    const channel = await admin(gateway, 'GET', '/channels/azure-v1-entra');
    for (const token of azure.issued) {
      for (const seen of [response.text, detail.text, channel.text]) expect(seen).not.toContain(token);
    }
  });

  it("content filter: a filtered completion finishes with content_filter; a filtered prompt is a clear 400", async () => {
    const filtered = await openai.chat.completions.create({ model: 'az-filtered', messages: [{ role: 'user', content: 'Hi' }] });
    expect(filtered.choices[0]!.finish_reason).toBe('content_filter');
    const refused = await call(gateway, 'POST', '/v1/chat/completions', { model: 'az-gpt4o', messages: [{ role: 'user', content: 'something forbidden' }] });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toBe('The request was blocked by the upstream content filter (violence: medium)');
    const viaMessages = await call(gateway, 'POST', '/v1/messages', { model: 'az-gpt4o', max_tokens: 50, messages: [{ role: 'user', content: 'forbidden again' }] }, { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
    expect(viaMessages.status).toBe(400);
    expect(viaMessages.json.type).toBe('error');
    expect(viaMessages.json.error.message).toContain('content filter');
  });

  it('429: retry-after-ms (20 ms) wins over retry-after (30 s, longer than the gateway waits), so it is retried and answers', async () => {
    const before = azure.seen.filter((s) => s.path.includes('/busy/')).length;
    const completion = await openai.chat.completions.create({ model: 'az-busy', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from Azure');
    expect(azure.seen.filter((s) => s.path.includes('/busy/')).length - before).toBe(2);
  });

  it('Anthropic-native /v1/messages (stream) and Gemini-native generateContent reach an Azure deployment', async () => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.url, maxRetries: 0 });
    const stream = anthropic.messages.stream({ model: 'az-gpt4o', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from Azure' })]);
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 5 });
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.url } });
    const answer = await ai.models.generateContent({ model: 'az-gpt4o', contents: 'Hi' });
    expect(answer.text).toBe('Hello from Azure');
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 5, totalTokenCount: 16 });
  });

  it('Responses: the preview api-version on /openai/responses, and the v1 form', async () => {
    const preview = await openai.responses.create({ model: 'az-resp', input: 'Hi' });
    expect(preview.output_text).toBe('Hello from Azure');
    expect(preview.usage).toMatchObject({ input_tokens: 11, output_tokens: 5, total_tokens: 16 });
    expect(azure.seen.at(-1)).toMatchObject({ path: '/openai/responses', query: { 'api-version': RESPONSES_API_VERSION }, auth: 'api-key' });
    const v1 = await openai.responses.create({ model: 'azv1-resp', input: 'Hi' });
    expect(v1.output_text).toBe('Hello from Azure');
    expect(azure.seen.at(-1)).toMatchObject({ path: '/openai/v1/responses', auth: 'bearer' });
  });

  it('embeddings and images on their deployments', async () => {
    const vectors = await openai.embeddings.create({ model: 'az-embed', input: ['a', 'b'], encoding_format: 'float' });
    expect(vectors.data.map((d) => d.embedding)).toEqual([[0.25, -0.5, 0], [0.25, -0.5, 1]]);
    expect(vectors.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(azure.seen.at(-1)).toMatchObject({ path: '/openai/deployments/embed-small/embeddings', query: { 'api-version': API_VERSION } });
    const image = await openai.images.generate({ model: 'az-image', prompt: 'a cat', response_format: 'b64_json' });
    expect(Buffer.from(image.data![0]!.b64_json!, 'base64').toString()).toBe('png-bytes');
    expect(azure.seen.at(-1)).toMatchObject({ path: '/openai/deployments/image-gen/images/generations' });
  });

  it('the admin API lists the vendor with its Entra fields; secrets stay sealed and masked', async () => {
    const vendors = await admin(gateway, 'GET', '/vendors');
    const azureVendor = vendors.json.data.find((v: { vendor: string }) => v.vendor === 'azure-openai');
    expect(azureVendor.credentials.map((f: { name: string }) => f.name)).toEqual(['api_key', 'api_version', 'tenant_id', 'client_id', 'client_secret', 'authority_host']);
    const created = await admin(gateway, 'POST', '/channels', {
      name: 'azure-runtime', vendor: 'azure-openai', base_url: azure.url, authority_host: azure.url,
      tenant_id: ENTRA.tenant, client_id: ENTRA.clientId, client_secret: ENTRA.clientSecret, models: { 'az-runtime': 'gpt4o-prod' },
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.json)).not.toContain(ENTRA.clientSecret);
    expect(created.json.settings).toEqual({ tenant_id: ENTRA.tenant, client_id: ENTRA.clientId, authority_host: azure.url });
    expect(created.json.credentials.client_secret).toBe(`••••${ENTRA.clientSecret.slice(-4)}`);
    const stored = await gateway.deps.db.selectFrom('runtime_channels').selectAll().where('name', '=', 'azure-runtime').executeTakeFirstOrThrow();
    expect(stored.definition).not.toContain(ENTRA.clientSecret);
    expect(String(stored.secrets)).not.toContain(ENTRA.clientSecret);
    const completion = await openai.chat.completions.create({ model: 'az-runtime', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from Azure');
  });

  it('a channel without base_url is answered by the built-in Azure simulator (v1 form)', async () => {
    const completion = await openai.chat.completions.create({ model: 'az-sim', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBeTruthy();
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
  });
});
