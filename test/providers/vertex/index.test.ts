import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../helpers/admin.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { CLAUDE_USAGE, GEMINI_USAGE, PROJECT, REGION, startFakeVertex, VERTEX_API_KEY, type FakeVertex } from './fake-vertex.js';

/**
 * Issue 30: Vertex AI channels with a service-account key (a signed JWT exchanged for a token the
 * fake verifies) and in express mode with an API key; Gemini and Claude behind every client surface.
 */
describe('vendor vertex (issue 30)', () => {
  let vertex: FakeVertex;
  let gateway: TestGateway;
  let openai: OpenAI;
  let keyDir: string;
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

  beforeAll(async () => {
    vertex = await startFakeVertex();
    keyDir = mkdtempSync(join(tmpdir(), 'vertex-key-'));
    const keyFile = join(keyDir, 'sa.json');
    writeFileSync(keyFile, vertex.serviceAccountJson);
    const wrongKey = JSON.stringify({ ...JSON.parse(vertex.serviceAccountJson), private_key: otherKey });
    gateway = await startTestGateway({
      file: {
        models: [
          { id: 'vx-embed', kind: 'embedding' as const },
          ...['vx-gemini', 'vx-claude', 'vx-file', 'vx-express', 'vx-wrong', 'vx-sim-gemini', 'vx-sim-claude'].map((id) => ({ id, kind: 'chat' as const })),
        ],
        channels: [
          { name: 'vertex-sa', vendor: 'vertex', base_url: vertex.url, project: PROJECT, region: REGION, service_account: vertex.serviceAccountJson, models: { 'vx-gemini': 'gemini-2.5-flash', 'vx-claude': 'claude-sonnet-4-5@20250929', 'vx-embed': 'text-embedding-005' } },
          { name: 'vertex-file', vendor: 'vertex', base_url: vertex.url, project: PROJECT, region: REGION, service_account: keyFile, models: { 'vx-file': 'gemini-2.5-flash' } },
          { name: 'vertex-sim', vendor: 'vertex', models: { 'vx-sim-gemini': 'gemini-2.5-flash', 'vx-sim-claude': 'claude-sonnet-4-5-20250929' } },
          { name: 'vertex-express', vendor: 'vertex', base_url: vertex.url, api_key: VERTEX_API_KEY, models: { 'vx-express': 'gemini-2.5-flash' } },
          { name: 'vertex-wrong', vendor: 'vertex', base_url: vertex.url, project: PROJECT, region: REGION, service_account: wrongKey, max_retries: 0, models: { 'vx-wrong': 'gemini-2.5-flash' } },
        ],
      },
    });
    openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.stop();
    await vertex?.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it('Gemini through chat completions: the project/region URL, a bearer minted from a verified JWT; exact usage', async () => {
    const completion = await openai.chat.completions.create({ model: 'vx-gemini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from Vertex');
    expect(completion.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    expect(vertex.seen.at(-1)).toMatchObject({ path: `/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/gemini-2.5-flash:generateContent`, auth: 'bearer' });
    expect(vertex.rejectedAssertions).toEqual([]);
    expect(vertex.mints).toBe(1);
  });

  it('streams Gemini (streamGenerateContent?alt=sse) with exact usage; concurrent requests share one token', async () => {
    const runs = await Promise.all(Array.from({ length: 4 }, async () => {
      const stream = await openai.chat.completions.create({ model: 'vx-gemini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }] });
      let text = '';
      let usage: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, usage };
    }));
    for (const run of runs) {
      expect(run.text).toBe('Hello from Vertex');
      expect(run.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    }
    expect(vertex.seen.at(-1)).toMatchObject({ query: { alt: 'sse' } });
    expect(vertex.mints).toBe(1);
  });

  it('@google/genai generateContent and its stream reach Gemini on Vertex natively', async () => {
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.url } });
    const answer = await ai.models.generateContent({ model: 'vx-gemini', contents: 'Hi' });
    expect(answer.text).toBe('Hello from Vertex');
    expect(answer.usageMetadata).toMatchObject(GEMINI_USAGE);
    let text = '';
    let usage: unknown;
    for await (const chunk of await ai.models.generateContentStream({ model: 'vx-gemini', contents: 'Hi' })) {
      text += chunk.text ?? '';
      if (chunk.usageMetadata) usage = chunk.usageMetadata;
    }
    expect(text).toBe('Hello from Vertex');
    expect(usage).toMatchObject(GEMINI_USAGE);
  });

  it('Anthropic-native /v1/messages to Claude: rawPredict with anthropic_version vertex-2023-10-16, the model in the URL', async () => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.url, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'vx-claude', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from Claude on Vertex' }]);
    expect(message.model).toBe('vx-claude');
    expect(message.usage).toMatchObject(CLAUDE_USAGE);
    const sent = vertex.seen.at(-1)!;
    expect(sent.path).toBe(`/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
    expect(sent.body.anthropic_version).toBe('vertex-2023-10-16');
    expect(sent.body).not.toHaveProperty('model');

    const stream = anthropic.messages.stream({ model: 'vx-claude', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    const streamed = await stream.finalMessage();
    expect(streamed.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from Claude on Vertex' })]);
    expect(streamed.usage).toMatchObject(CLAUDE_USAGE);
    expect(vertex.seen.at(-1)!.path).toMatch(/:streamRawPredict$/);
  });

  it('Claude through the openai SDK (stream and not) and @google/genai, exact usage', async () => {
    const completion = await openai.chat.completions.create({ model: 'vx-claude', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from Claude on Vertex');
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 });
    const stream = await openai.chat.completions.create({ model: 'vx-claude', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }] });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from Claude on Vertex');
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 });
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.url } });
    const answer = await ai.models.generateContent({ model: 'vx-claude', contents: 'Hi' });
    expect(answer.text).toBe('Hello from Claude on Vertex');
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 });
  });

  it('a key file path works too; its token is renewed early, once, not per request', async () => {
    vertex.tokenLifetimeS = 4;
    const before = vertex.mints;
    const ask = () => openai.chat.completions.create({ model: 'vx-file', messages: [{ role: 'user', content: 'Hi' }] });
    await ask();
    await ask();
    expect(vertex.mints - before).toBe(1);
    // Past the renewal point (3 s), before the token expires.
    await new Promise((resolve) => setTimeout(resolve, 3200));
    await Promise.all([ask(), ask(), ask()]);
    expect(vertex.mints - before).toBe(2);
    expect(vertex.rejectedAssertions).toEqual([]);
    vertex.tokenLifetimeS = 3599;
  });

  it('express mode: x-goog-api-key on /v1/publishers/google/models/…', async () => {
    const completion = await openai.chat.completions.create({ model: 'vx-express', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from Vertex');
    expect(vertex.seen.at(-1)).toMatchObject({ path: '/v1/publishers/google/models/gemini-2.5-flash:generateContent', auth: 'api-key' });
  });

  it('a key Google refuses is a 502 upstream-auth error in each client envelope, never a 500, nothing of the key shown', async () => {
    const chat = await call(gateway, 'POST', '/v1/chat/completions', { model: 'vx-wrong', messages: [{ role: 'user', content: 'Hi' }] });
    expect(chat.status).toBe(502);
    expect(chat.json.error.code).toBe('upstream_auth_failed');
    expect(chat.json.error.message).toContain('invalid_grant');
    expect(vertex.rejectedAssertions).toContain('signature');
    const native = await call(gateway, 'POST', '/v1beta/models/vx-wrong:generateContent', { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }, { 'x-goog-api-key': TEST_KEY });
    expect(native.status).toBe(502);
    expect(native.json.error.status).toBe('UNAVAILABLE');
    for (const text of [chat.text, native.text]) {
      expect(text).not.toContain('PRIVATE KEY');
      expect(text).not.toContain('gserviceaccount');
    }
  });

  it('the vendor form has a write-only paste box for the key; a runtime channel stores it sealed', async () => {
    const vendors = await admin(gateway, 'GET', '/vendors');
    const fields = vendors.json.data.find((v: { vendor: string }) => v.vendor === 'vertex').credentials;
    expect(fields.find((f: { name: string }) => f.name === 'service_account')).toMatchObject({ secret: true, multiline: true });
    const created = await admin(gateway, 'POST', '/channels', { name: 'vertex-runtime', vendor: 'vertex', base_url: vertex.url, project: PROJECT, region: REGION, service_account: vertex.serviceAccountJson, models: { 'vx-gemini': 'gemini-2.5-flash' } });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain('PRIVATE KEY');
    const stored = await gateway.deps.db.selectFrom('runtime_channels').selectAll().where('name', '=', 'vertex-runtime').executeTakeFirstOrThrow();
    expect(stored.definition).not.toContain('PRIVATE KEY');
    expect(String(stored.secrets)).not.toContain('PRIVATE KEY');
  });

  it('the admin API takes a key file\'s content, never a path on the gateway host (issue 44); the file may name one', async () => {
    const fields = { vendor: 'vertex', base_url: vertex.url, project: PROJECT, region: REGION, models: { 'vx-gemini': 'gemini-2.5-flash' } };
    // A path to a valid key (which the old gateway read and used), a system file, the data directory's sealing key.
    for (const path of [join(keyDir, 'sa.json'), '/etc/passwd', join(gateway.dataDir, 'secret.key')]) {
      const created = await admin(gateway, 'POST', '/channels', { name: 'vertex-by-path', ...fields, service_account: path });
      expect(created.status, path).toBe(400);
      expect(created.json.error.message, path).toContain("'service_account'");
      expect((await admin(gateway, 'GET', '/channels/vertex-by-path')).status, path).toBe(404);
    }
    const mints = vertex.mints;
    const changed = await admin(gateway, 'PATCH', '/channels/vertex-sa', { service_account: '/etc/passwd' });
    expect(changed.status).toBe(400);
    expect(changed.json.error.message).toContain("'service_account'");
    // The configuration file's own path stays; changing another field of that channel is fine.
    expect((await admin(gateway, 'PATCH', '/channels/vertex-file', { max_retries: 1 })).status).toBe(200);
    expect((await openai.chat.completions.create({ model: 'vx-gemini', messages: [{ role: 'user', content: 'Hi' }] })).choices[0]!.message.content).toBe('Hello from Vertex');
    expect(vertex.mints).toBe(mints);
  });

  it('prices Claude on Vertex by its Vertex id as Anthropic prices the model', async () => {
    const sheet = await admin(gateway, 'GET', '/price-sheet');
    const models = sheet.json.vendors.flatMap((v: { models: unknown[] }) => v.models) as Array<{ id: string; price: Record<string, number> }>;
    const onVertex = models.find((m) => m.id === 'claude-sonnet-4-5@20250929');
    const own = models.find((m) => m.id === 'claude-sonnet-4-5-20250929');
    expect(onVertex?.price).toEqual(own?.price);
  });

  it('a channel without base_url is answered by the built-in Vertex simulator (Gemini and Claude)', async () => {
    for (const model of ['vx-sim-gemini', 'vx-sim-claude']) {
      const completion = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] });
      expect(completion.choices[0]!.message.content, model).toBeTruthy();
      expect(completion.usage!.prompt_tokens, model).toBeGreaterThan(0);
    }
  });

  it('"Test" on a channel proves the key with one call, or says why it cannot; the view shows the key masked', async () => {
    const good = await admin(gateway, 'POST', '/channels/vertex-sa/test', {});
    expect(good.json).toMatchObject({ ok: true, model: 'vx-gemini', reply: 'Hello from Vertex' });
    const bad = await admin(gateway, 'POST', '/channels/vertex-wrong/test', {});
    expect(bad.json).toMatchObject({ ok: false, status: 502 });
    expect(bad.json.error).toContain('invalid_grant');
    expect(bad.json.vendor_message).toContain('Invalid JWT Signature');
    const view = await admin(gateway, 'GET', '/channels/vertex-sa');
    expect(view.json.credentials.service_account).toBe('••••');
    expect(view.text).not.toContain('PRIVATE KEY');
  });

  it('embeddings through :predict, one instance per text, dimensions and token counts kept', async () => {
    const answer = await openai.embeddings.create({ model: 'vx-embed', input: ['one two', 'three'], dimensions: 3, encoding_format: 'float' });
    expect(answer.data.map((d) => d.embedding)).toEqual([[7 / 8, 8 / 8, 9 / 8], [5 / 8, 6 / 8, 7 / 8]]);
    expect(answer.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const sent = vertex.seen.at(-1)!;
    expect(sent.path).toBe(`/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/text-embedding-005:predict`);
    expect(sent.body).toEqual({ instances: [{ content: 'one two' }, { content: 'three' }], parameters: { autoTruncate: true, outputDimensionality: 3 } });
    const sdkDefault = await openai.embeddings.create({ model: 'vx-embed', input: 'one two' });
    expect(sdkDefault.data[0]!.embedding).toEqual([7 / 8, 8 / 8, 9 / 8, 10 / 8]);
    // The gateway's retrieval role becomes each instance's task_type.
    const query = await call(gateway, 'POST', '/v1/embeddings', { model: 'vx-embed', input: ['where is it'], input_type: 'query' });
    expect(query.status, query.text).toBe(200);
    expect(vertex.seen.at(-1)!.body.instances).toEqual([{ content: 'where is it', task_type: 'RETRIEVAL_QUERY' }]);
  });

  it("Claude Code's request arrives intact: cache_control, a signed thinking block, tools and the anthropic-beta header", async () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'List files', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Use the tool.', signature: 'EqQBCkYIBxgCKkD+/sig==' }, { type: 'tool_use', id: 'toolu_1', name: 'ls', input: { path: '.' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
    ];
    const tools = [{ name: 'ls', description: 'list', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
    const response = await call(gateway, 'POST', '/v1/messages', { model: 'vx-claude', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, tools, messages }, {
      'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14',
    });
    expect(response.status, response.text).toBe(200);
    const sent = vertex.seen.at(-1)!;
    expect(sent.body.messages).toEqual(messages);
    expect(sent.body.tools).toEqual(tools);
    expect(sent.beta).toBe('interleaved-thinking-2025-05-14');
  });
});
