import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { CATALOG } from '../../../src/catalog/models.js';
import { readConfigFile } from '../../../src/config/load.js';
import { startGateway } from '../../../src/main.js';
import type { FileConfig, GatewayConfig } from '../../../src/config/schema.js';

const chat = (gateway: { url: string }, model: string, headers = bearer(TEST_KEY)) =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, headers);

const FILE: FileConfig = {
  models: [
    { id: 'house-chat', kind: 'chat', owned_by: 'acme' },
    { id: 'house-draw', kind: 'image' },
    { id: 'house-gemini', kind: 'reasoning' },
  ],
  prices: { 'house-chat': { prompt_per_1m: 1, completion_per_1m: 2 } },
  channels: [
    // An operator model and a model of the built-in sheet under its own name (the example).
    { name: 'acme', vendor: 'openai', models: { 'house-chat': 'gpt-4.1-mini', 'gpt-5-mini': 'gpt-5-mini' } },
    { name: 'draw', vendor: 'gemini', models: { 'house-draw': 'gemini-3.1-flash-image', 'house-gemini': 'gemini-2.5-flash' } },
  ],
};

describe('the catalog the operator extends (issue 21)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: FILE });
  });
  afterAll(() => gateway.stop());

  it('serves the operator\'s models and a built-in sheet model a channel maps, on chat, messages and responses', async () => {
    for (const model of ['house-chat', 'gpt-5-mini']) {
      const completion = await chat(gateway, model);
      expect(completion.status, completion.text).toBe(200);
      expect(completion.json.model).toBe(model);
      const message = await call(gateway, 'POST', '/v1/messages', { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
      expect(message.status, message.text).toBe(200);
      const response = await call(gateway, 'POST', '/v1/responses', { model, input: 'hi', max_output_tokens: 16 });
      expect(response.status, response.text).toBe(200);
      expect(response.json.object).toBe('response');
    }
  });

  it('keeps every rule but the model list: a bad field of an operator model is still a 400 naming it', async () => {
    const bad = await call(gateway, 'POST', '/v1/chat/completions', { model: 'house-chat', messages: [], max_tokens: 5 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain("'messages' must have at least 1 item");
    const temperature = await call(gateway, 'POST', '/v1/messages', { model: 'house-chat', messages: [{ role: 'user', content: 'hi' }], temperature: 3 });
    expect(temperature.status).toBe(400);
    expect(temperature.json.error.message).toContain("'temperature'");
  });

  it('refuses a model nothing serves, listing the spec\'s models then the operator\'s', async () => {
    const refused = await chat(gateway, 'gpt-5-nano');
    expect(refused.status).toBe(400);
    assertEnvelope('chat', refused.json);
    expect(refused.json.error.message).toBe(`'model' must be one of: ${CATALOG.filter((m) => m.families.includes('chat-completions')).map((m) => m.id).join(', ')}, gpt-5-mini, house-chat, house-gemini`);
    // An image model is not a chat model.
    expect((await chat(gateway, 'house-draw')).status).toBe(400);
    const image = await call(gateway, 'POST', '/v1/images/generations', { model: 'house-draw', prompt: 'a cat', response_format: 'b64_json' });
    expect(image.status, image.text).toBe(200);
    expect(image.json.data).toHaveLength(1);
  });

  it('serves an operator model on the native paths (generateContent, stream, countTokens), and 404s an unknown one before authentication', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    const generated = await call(gateway, 'POST', `/v1beta/models/house-gemini:generateContent?key=${TEST_KEY}`, body, {});
    expect(generated.status, generated.text).toBe(200);
    expect(generated.json.candidates[0].content.parts.length).toBeGreaterThan(0);
    const streamed = await call(gateway, 'POST', `/v1beta/models/house-gemini:streamGenerateContent?alt=sse&key=${TEST_KEY}`, body, {});
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('data: ');
    const counted = await call(gateway, 'POST', `/v1/models/house-gemini:countTokens?key=${TEST_KEY}`, body, {});
    expect(counted.json.totalTokens).toBeGreaterThan(0);
    const invalid = await call(gateway, 'POST', `/v1beta/models/house-gemini:generateContent?key=${TEST_KEY}`, { contents: [] }, {});
    expect(invalid.status).toBe(400);
    assertEnvelope('google', invalid.json);
    for (const path of ['/v1beta/models/nope:generateContent', '/v1beta/models/house-gemini:explode', '/v1beta/models/delta-4.1:generateContent']) {
      const missing = await call(gateway, 'POST', path, body, {});
      expect(missing.status, path).toBe(404);
      assertEnvelope('google', missing.json);
    }
    const google = await call(gateway, 'GET', `/v1beta/models?key=${TEST_KEY}`, undefined, {});
    expect(google.json.models.map((m: { baseModelId: string }) => m.baseModelId)).toEqual(['gamma-3.1-flash-image', 'gamma-2.5-flash-lite', 'gpt-5-mini', 'house-chat', 'house-draw', 'house-gemini']);
  });

  it('lists every served model in /v1/models, filtered by the key; the official SDK reads it', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1` });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    // The simulator's embedding and rerank models are served out of the box (issue 29).
    expect(ids).toEqual([...CATALOG.map((m) => m.id), 'embed-v4.0', 'gemini-embedding-001', 'gpt-5-mini', 'house-chat', 'house-draw', 'house-gemini', 'rerank-2.5', 'rerank-v3.5', 'text-embedding-3-large', 'text-embedding-3-small', 'text-embedding-ada-002', 'voyage-3.5']);
    expect((await client.models.retrieve('house-chat')).owned_by).toBe('acme');
    expect((await client.models.retrieve('gpt-5-mini')).owned_by).toBe('openai');

    const { key } = await createKey(gateway, { models: ['house-chat', 'delta-4.1'] });
    const limited = await call(gateway, 'GET', '/v1/models', undefined, bearer(key));
    expect(limited.json.data.map((m: { id: string }) => m.id)).toEqual(['delta-4.1', 'house-chat']);
    expect((await chat(gateway, 'gpt-5-mini', bearer(key))).status).toBe(403);
    const images = await createKey(gateway, { endpoints: ['images'] });
    const imageModels = await call(gateway, 'GET', '/v1/models', undefined, bearer(images.key));
    expect(imageModels.json.data.map((m: { id: string }) => m.id)).toEqual(['gamma-3.1-flash-image', 'house-draw']);
    // Keys name models of the catalog, the operator's included; a typo is still refused.
    const typo = await admin(gateway, 'POST', '/keys', { name: 'typo', models: ['house-chta'] });
    expect(typo.status).toBe(400);
    expect(typo.json.error.message).toContain("'models[0]' must be one of:");
  });

  it('the admin API lists models with source, channels and price, adds and changes models and prices, and refuses what it must', async () => {
    const list = await admin(gateway, 'GET', '/models');
    const byId = Object.fromEntries(list.json.data.map((m: { id: string }) => [m.id, m]));
    expect(byId['delta-4.1']).toMatchObject({ source: 'spec', served: true, kind: 'chat', price_source: 'builtin', price: { prompt_per_1m: 2, cached_prompt_per_1m: 0.5, completion_per_1m: 8 } });
    expect(byId['delta-4.1'].price_basis).toContain('gpt-4.1');
    expect(byId['house-chat']).toMatchObject({ source: 'file', vendor: 'acme', channels: ['acme'], price_source: 'operator', price: { prompt_per_1m: 1 } });
    expect(byId['gpt-5-mini']).toMatchObject({ source: 'builtin', served: true, price_source: 'builtin', price: { prompt_per_1m: 0.25 } });

    const created = await admin(gateway, 'POST', '/models', { id: 'house-later', kind: 'reasoning', families: ['chat-completions'], price: { prompt_per_1m: 3, completion_per_1m: 9 } });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ id: 'house-later', source: 'runtime', served: false, families: ['chat-completions'], price_source: 'operator', price_runtime: true });
    // Known but served by no channel yet: not accepted.
    expect((await chat(gateway, 'house-later')).status).toBe(400);
    expect((await admin(gateway, 'POST', '/models', { id: 'house-later', kind: 'chat' })).status).toBe(409);
    expect((await admin(gateway, 'POST', '/models', { id: 'delta-4.1', kind: 'chat' })).status).toBe(409);
    const badId = await admin(gateway, 'POST', '/models', { id: 'bad:id', kind: 'chat' });
    expect(badId.status).toBe(400);
    // The rule in words, not the regex (issue 35).
    expect(badId.json.error.message).toContain('only letters, digits and . _ @ / + -');
    expect(badId.json.error.message).not.toContain('^[A-Za-z0-9]');
    expect((await admin(gateway, 'POST', '/models', { id: 'x', kind: 'audio' })).status).toBe(400);
    expect((await admin(gateway, 'POST', '/models', { id: 'x', kind: 'chat', price: { prompt_per_1m: -1 } })).status).toBe(400);

    // A spec model's price changes at runtime (and back with null); its definition does not.
    const priced = await admin(gateway, 'PATCH', '/models/delta-4.1', { price: { prompt_per_1m: 10, completion_per_1m: 20 } });
    expect(priced.json).toMatchObject({ price_source: 'operator', price_runtime: true, price: { prompt_per_1m: 10 } });
    expect((await admin(gateway, 'GET', '/prices')).json.data['delta-4.1']).toEqual({ prompt_per_1m: 10, completion_per_1m: 20 });
    expect((await admin(gateway, 'PATCH', '/models/delta-4.1', { kind: 'image' })).status).toBe(400);
    const reset = await admin(gateway, 'PATCH', '/models/delta-4.1', { price: null });
    expect(reset.json).toMatchObject({ price_source: 'builtin', price_runtime: false });

    // A file model changed here gets a row of its own; DELETE puts the file's back.
    const patched = await admin(gateway, 'PATCH', '/models/house-chat', { families: ['chat-completions'] });
    expect(patched.json).toMatchObject({ source: 'runtime', families: ['chat-completions'] });
    expect((await call(gateway, 'POST', '/v1/messages', { model: 'house-chat', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(400);
    const restored = await admin(gateway, 'DELETE', '/models/house-chat');
    expect(restored.json).toMatchObject({ source: 'file', families: ['chat-completions', 'messages', 'responses', 'generate-content'] });
    expect((await admin(gateway, 'DELETE', '/models/house-chat')).status).toBe(409);
    expect((await admin(gateway, 'DELETE', '/models/nope')).status).toBe(404);
    expect((await admin(gateway, 'DELETE', '/models/house-later')).status).toBe(204);

    const sheet = await admin(gateway, 'GET', '/price-sheet');
    expect(sheet.json.enabled).toBe(true);
    const anthropic = sheet.json.vendors.find((v: { vendor: string }) => v.vendor === 'anthropic');
    expect(anthropic).toMatchObject({ source: expect.stringMatching(/^https:\/\//), checked: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  });
});

describe('catalog references are checked at start (issue 21)', () => {
  const writeYaml = (lines: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-catalog-'));
    const path = join(dir, 'gateway.yaml');
    writeFileSync(path, lines.join('\n'));
    return { dir, path };
  };
  const start = async (lines: string[]) => {
    const { dir, path } = writeYaml(lines);
    const { file, source } = readConfigFile(path, {});
    const config: GatewayConfig = {
      port: 0, host: '127.0.0.1', dataDir: dir, publicUrl: undefined, bootstrapKey: TEST_KEY, adminToken: undefined, bodyLimitBytes: 1 << 20,
      logLevel: 'silent', workers: 1, databaseUrl: undefined, redisUrl: undefined, file, fileSource: source,
    };
    const running = await startGateway(config, { announce: () => undefined });
    await running.close();
  };

  it('refuses a channel mapping a model nothing can serve, naming the field and its line', async () => {
    await expect(start(['channels:', '  - name: a', '    vendor: openai', '    models:', '      delta-4.1: gpt-4.1', '      gpt-9-turbo: gpt-9-turbo', ''])).rejects.toThrow(
      /'channels\.0\.models\.gpt-9-turbo' \(line 6\) is not a model the gateway knows/,
    );
    await expect(start(['prices:', '  house: { prompt_per_1m: 1 }', ''])).rejects.toThrow(/'prices\.house' \(line 2\)/);
    await expect(start(['models:', '  - id: delta-4.1', '    kind: chat', ''])).rejects.toThrow(/'models\.0\.id' \(line 2\) 'delta-4\.1' is a model of the specification/);
    await expect(start(['channels:', '  - name: a', '    vendor: openai', '    models: { delta-4.1: gpt-4.1 }', '    prices: { beta-seed-2.0-pro: { prompt_per_1m: 1 } }', ''])).rejects.toThrow(
      /'channels\.0\.prices\.beta-seed-2\.0-pro' \(line 5\) names a model channel 'a' does not serve/,
    );
  });

  it('boots when the model is declared, or is a model of the built-in sheet', async () => {
    await start(['models:', '  - id: house', '    kind: chat', 'channels:', '  - name: a', '    vendor: openai', '    models: { house: gpt-4.1, gpt-4o: gpt-4o }', 'prices:', '  house: { prompt_per_1m: 1 }', '']);
  });
});
