import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { startStoringResponsesVendor, type StoringResponsesVendor } from '../../helpers/storing-responses-vendor.js';

const MODEL = 'beta-seed-2.0-pro';
const CHAT_MODEL = 'delta-4.1';

/**
 * Issue 33: Codex (the Responses API) on an OpenAI-compatible server that serves chat completions
 * only, and answers /responses with 404 as such servers do. By default a channel off
 * api.openai.com translates; one declared `responses: native` gets a clear capability error, and
 * its 404s do not open the circuit its chat traffic goes through.
 */
describe('channels say whether they speak Responses (issue 33)', () => {
  let server: StoringResponsesVendor;
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startStoringResponsesVendor({ chatOnly: true });
    gateway = await startTestGateway({
      file: {
        routing: { circuit_threshold: 1, circuit_cool_down_ms: 60_000 },
        channels: [
          { name: 'deepseek', vendor: 'openai', base_url: `${server.url}/v1`, api_key: 'k', models: { [MODEL]: 'deepseek-chat' }, max_retries: 0 },
          { name: 'vllm-declared-native', vendor: 'openai', base_url: `${server.url}/v1`, api_key: 'k', responses: 'native', models: { 'beta-seed-2.0-code': 'qwen', [CHAT_MODEL]: 'qwen' }, max_retries: 0 },
        ],
      },
    });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.stop();
    await server.close();
  });

  it('serves /v1/responses through chat completions on a chat-only base URL, JSON and streamed', async () => {
    server.paths.length = 0;
    const answer = await client.responses.create({ model: MODEL, input: 'hello', instructions: 'Be brief.' });
    expect(answer.output_text).toBe('chat answer');
    const stream = await client.responses.create({ model: MODEL, input: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'hello' }], stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.completed');
    expect(server.paths).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });

  it("leaves out the web_search tool Codex attaches to every request (nothing to search with); forcing it is a 400", async () => {
    const tools: OpenAI.Responses.Tool[] = [
      { type: 'function', name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false },
      { type: 'web_search' },
    ];
    const answer = await client.responses.create({ model: MODEL, input: 'hello', tools });
    expect(answer.output_text).toBe('chat answer');
    const sent = server.bodies.at(-1)!;
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false } }]);
    expect(sent).not.toHaveProperty('web_search_options');
    const forced = await client.responses.create({ model: MODEL, input: 'hello', tools, tool_choice: { type: 'web_search' } as never }).catch((error: unknown) => error);
    expect(forced).toBeInstanceOf(OpenAI.BadRequestError);
    expect((forced as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('tool_choice');
  });

  it('answers a native channel without Responses with a clear 400, and keeps its chat traffic flowing', async () => {
    server.paths.length = 0;
    for (let i = 0; i < 5; i++) {
      const refused = await client.responses.create({ model: 'beta-seed-2.0-code', input: 'hi' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as Error).message).toMatch(/not available on this endpoint/);
    }
    // Five 404s with a circuit threshold of 1: chat still reaches the same channel.
    const chat = await client.chat.completions.create({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]!.message.content).toBe('chat answer');
    expect(server.paths.filter((path) => path === '/v1/responses')).toHaveLength(5);
    expect(server.paths.at(-1)).toBe('/v1/chat/completions');
    expect(gateway.deps.circuits.isOpen('vllm-declared-native')).toBe(false);
  });
});
