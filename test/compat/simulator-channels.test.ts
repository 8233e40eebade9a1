import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { RECIPE_SCHEMA, schemaErrors, WEATHER_PARAMETERS } from './schema-check.js';

/**
 * The simulator as a test double keeps its agent properties when the chat model is served by the
 * Anthropic or the Gemini simulator through translation (issue 16): schema-valid tool calls, a
 * final answer after tool results, structured output that validates, and options that cannot be
 * honoured refused with a clear 400.
 */
describe.each([
  ['anthropic', 'claude-sonnet-4-5-20250929'],
  ['gemini', 'gemini-2.5-flash-lite'],
])('compat: the %s simulator channel through the chat translation', (vendor, upstreamModel) => {
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { channels: [{ name: `${vendor}-chat`, vendor: vendor as 'anthropic', api_key: 'sk-test-channel', models: { 'delta-4.1': upstreamModel } }] } });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  const weather: OpenAI.Chat.Completions.ChatCompletionFunctionTool = { type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMETERS as never } };

  it('tool round trip: schema-valid arguments, then the final answer', async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Quito?' }];
    const first = await client.chat.completions.create({ model: 'delta-4.1', messages, tools: [weather] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && schemaErrors(WEATHER_PARAMETERS, JSON.parse(call.function.arguments))).toEqual([]);
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'hail' });
    const second = await client.chat.completions.create({ model: 'delta-4.1', messages, tools: [weather] });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content).toContain('hail');
  });

  it('structured output with json_schema validates', async () => {
    const completion = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'A recipe' }],
      response_format: { type: 'json_schema', json_schema: { name: 'recipe', schema: RECIPE_SCHEMA as never } },
    });
    expect(schemaErrors(RECIPE_SCHEMA, JSON.parse(completion.choices[0]!.message.content!))).toEqual([]);
  });

  it('logprobs are refused with a 400 naming the field, not silently dropped', async () => {
    const error = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'x' }], logprobs: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toMatch(/logprobs/);
  });
});
