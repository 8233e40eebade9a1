import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateImage, generateObject, generateText, jsonSchema, Output, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { RECIPE_SCHEMA, schemaErrors, WEATHER_PARAMETERS } from './schema-check.js';

/**
 * The Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`) against the gateway (issue 16).
 * `supportsStructuredOutputs` is the provider's own switch for servers that take `json_schema`.
 */
describe('compat: Vercel AI SDK with @ai-sdk/openai-compatible', () => {
  let gateway: TestGateway;
  let provider: ReturnType<typeof createOpenAICompatible>;
  beforeAll(async () => {
    gateway = await startTestGateway();
    provider = createOpenAICompatible({ name: 'gateway', baseURL: `${gateway.url}/v1`, apiKey: TEST_KEY, includeUsage: true, supportsStructuredOutputs: true });
  });
  afterAll(() => gateway.stop());

  it('generateText with usage', async () => {
    const result = await generateText({ model: provider('delta-4.1'), prompt: 'Hello Vercel' });
    expect(result.text).toContain('Hello Vercel');
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
  });

  it('streamText with usage', async () => {
    const result = streamText({ model: provider('delta-4.1'), prompt: 'Stream Vercel' });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toContain('Stream Vercel');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('tools: an agent loop calls the tool with schema-valid input, then answers', async () => {
    const inputs: unknown[] = [];
    const result = await generateText({
      model: provider('delta-4.1'),
      prompt: 'What is the weather in Berlin?',
      tools: {
        get_weather: tool({
          description: 'Weather forecast for a city',
          inputSchema: jsonSchema(WEATHER_PARAMETERS as never),
          execute: async (input: unknown) => {
            inputs.push(input);
            return { forecast: 'windy' };
          },
        }),
      },
      stopWhen: stepCountIs(5),
    });
    expect(inputs).toHaveLength(1);
    expect(schemaErrors(WEATHER_PARAMETERS, inputs[0])).toEqual([]);
    expect(result.steps).toHaveLength(2);
    expect(result.text).toContain('windy');
  });

  it('tools with zod schemas, streamed', async () => {
    const result = streamText({
      model: provider('delta-4.1'),
      prompt: 'Convert currency please',
      tools: { convert_currency: tool({ inputSchema: z.object({ amount: z.number().positive(), to: z.enum(['EUR', 'USD']) }), execute: async ({ amount, to }) => `${amount} ${to} = 42` }) },
      stopWhen: stepCountIs(3),
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toContain('= 42');
  });

  it('generateObject and Output.object give objects that validate', async () => {
    const Recipe = z.object({ title: z.string(), minutes: z.number().int().min(1).max(300), steps: z.array(z.string()).min(1) });
    const { object } = await generateObject({ model: provider('delta-4.1'), schema: Recipe, prompt: 'A pancake recipe' });
    expect(Recipe.parse(object)).toEqual(object);
    const { output } = await generateText({ model: provider('delta-4.1'), output: Output.object({ schema: jsonSchema(RECIPE_SCHEMA as never) }), prompt: 'A salad' });
    expect(schemaErrors(RECIPE_SCHEMA, output)).toEqual([]);
  });

  it('generateImage returns image data the SDK accepts', async () => {
    const { image } = await generateImage({ model: provider.imageModel('gamma-3.1-flash-image'), prompt: 'a lighthouse', size: '1024x1024' });
    expect(Buffer.from(image.uint8Array).subarray(1, 4).toString()).toBe('PNG');
  });

  it('generateImage needs no second fetch: the image data comes inline (a public URL behind a proxy or on loopback is not fetched)', async () => {
    // GATEWAY_PUBLIC_URL names an address this client cannot reach: only inline data can work.
    const behindProxy = await startTestGateway({ env: { publicUrl: 'http://127.0.0.1:9' } });
    try {
      const remote = createOpenAICompatible({ name: 'gateway', baseURL: `${behindProxy.url}/v1`, apiKey: TEST_KEY });
      const { images } = await generateImage({ model: remote.imageModel('gamma-3.1-flash-image'), prompt: 'a fox', n: 2, maxRetries: 0 });
      expect(images).toHaveLength(2);
      for (const image of images) expect(Buffer.from(image.uint8Array).subarray(1, 4).toString()).toBe('PNG');
    } finally {
      await behindProxy.stop();
    }
  });

  it('errors: a bad model and a bad key are APICallErrors with the gateway message', async () => {
    const badModel = await generateText({ model: provider('no-such-model'), prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(badModel)).toBe(true);
    expect((badModel as APICallError).statusCode).toBe(400);
    expect((badModel as APICallError).message).toMatch(/model/);
    const stranger = createOpenAICompatible({ name: 'gateway', baseURL: `${gateway.url}/v1`, apiKey: 'sk-gw-wrong' });
    const badKey = await generateText({ model: stranger('delta-4.1'), prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(badKey)).toBe(true);
    expect((badKey as APICallError).statusCode).toBe(401);
    expect((badKey as APICallError).message).toMatch(/API key/i);
  });
});
