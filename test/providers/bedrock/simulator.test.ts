import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { converseText } from './fake-answers.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin } from '../../helpers/admin.js';
import { startFakeBedrock, type FakeBedrock } from './fake-bedrock.js';

const REGION = 'us-west-2';
const KEYS = { accessKeyId: 'AKIARUNTIMECHANNEL01', secretAccessKey: 'runtime/Secret+Key/abcdefghijklmnopqrstuvwxyz01' };

/**
 * A Bedrock channel added through the admin API (credentials sealed, shown masked, used to sign at
 * once), and Bedrock channels without `base_url`, served by the built-in simulator in both protocols.
 */
describe('Bedrock channels at runtime and on the simulator (issue 30)', () => {
  let fake: FakeBedrock;
  let gateway: TestGateway;
  beforeAll(async () => {
    fake = await startFakeBedrock({ ...KEYS, region: REGION }, () => converseText('from the runtime channel'));
    gateway = await startTestGateway({
      file: {
        models: ['claude-sim', 'nova-sim', 'nova-runtime'].map((id) => ({ id, kind: 'chat' as const })),
        channels: [{ name: 'bedrock-sim', vendor: 'bedrock', models: { 'claude-sim': 'global.anthropic.claude-haiku-4-5-20251001-v1:0', 'nova-sim': 'amazon.nova-lite-v1:0' } }],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await fake.close();
  });

  it('a runtime channel takes AWS keys: sealed, masked in answers, and the request is signed with them', async () => {
    // The region comes from a regional endpoint's host where the channel names none; here base_url is the fake, so it is set.
    const created = await admin(gateway, 'POST', '/channels', {
      name: 'bedrock-runtime', vendor: 'bedrock', base_url: fake.url, region: REGION, aws_access_key_id: KEYS.accessKeyId, aws_secret_access_key: KEYS.secretAccessKey, models: { 'nova-runtime': 'us.amazon.nova-lite-v1:0' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.credentials).toMatchObject({ aws_access_key_id: expect.stringContaining(KEYS.accessKeyId.slice(-4)), aws_secret_access_key: expect.stringContaining(KEYS.secretAccessKey.slice(-4)), aws_session_token: null });
    expect(created.text).not.toContain(KEYS.secretAccessKey);
    expect(created.text).not.toContain(KEYS.accessKeyId);
    const row = await gateway.deps.db.selectFrom('runtime_channels').selectAll().where('name', '=', 'bedrock-runtime').executeTakeFirstOrThrow();
    expect(row.definition).not.toContain(KEYS.secretAccessKey);
    expect(row.secrets).not.toContain(KEYS.secretAccessKey);
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'nova-runtime', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('from the runtime channel');
    expect(String(fake.calls.at(-1)!.headers.authorization)).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${KEYS.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request`));
    // The console's "Test" proves the credentials with one short call; a wrong secret fails it, without the secret.
    const tested = await admin(gateway, 'POST', '/channels/bedrock-runtime/test');
    expect(tested.json).toMatchObject({ ok: true, model: 'nova-runtime', reply: 'from the runtime channel' });
    expect((await admin(gateway, 'PATCH', '/channels/bedrock-runtime', { aws_secret_access_key: 'rotated-wrong-secret-000000' })).status).toBe(200);
    const failing = await admin(gateway, 'POST', '/channels/bedrock-runtime/test');
    expect(failing.json).toMatchObject({ ok: false, status: 502 });
    expect(failing.text).not.toContain('rotated-wrong-secret-000000');
  });

  it('the simulator answers Converse, ConverseStream and Claude through InvokeModel with event streams', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const plain = await client.chat.completions.create({ model: 'nova-sim', messages: [{ role: 'user', content: 'Hello simulator' }] });
    expect(plain.choices[0]!.message.content).toContain('Hello simulator');
    expect(plain.usage!.prompt_tokens).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({ model: 'nova-sim', messages: [{ role: 'user', content: 'Hello simulator' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(plain.choices[0]!.message.content);
    expect(usage).toEqual(plain.usage);

    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.url, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'claude-sim', max_tokens: 200, messages: [{ role: 'user', content: 'Hello Claude' }] });
    const streamed = await anthropic.messages.stream({ model: 'claude-sim', max_tokens: 200, messages: [{ role: 'user', content: 'Hello Claude' }] }).finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Hello Claude') });
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: (message.content[0] as { text: string }).text });
    expect(streamed.usage.output_tokens).toBe(message.usage.output_tokens);
    expect(message.model).toBe('claude-sim');
  });
});
