import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type, type Content } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { RECIPE_SCHEMA, schemaErrors, WEATHER_PARAMETERS } from './schema-check.js';

/**
 * `@google/genai`, current major, exactly as its README shows it: an API key and a base URL, no
 * other options. This major calls the Gemini API under `/v1` by default (issue 16).
 */
describe('compat: @google/genai (default API version)', () => {
  let gateway: TestGateway;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    gateway = await startTestGateway();
    ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.url } });
  });
  afterAll(() => gateway.stop());
  const lastUpstream = () => gateway.deps.simulators.get('simulator-gemini')!.requests.at(-1)!;

  it('generateContent on the default version path (/v1/models/…)', async () => {
    const response = await ai.models.generateContent({ model: 'gamma-2.5-flash-lite', contents: 'Hello from v1' });
    expect(response.text).toContain('Hello from v1');
    expect(response.usageMetadata!.totalTokenCount).toBeGreaterThan(0);
  });

  it('generateContentStream on the text model (SSE), usage at the end', async () => {
    let text = '';
    let total = 0;
    for await (const chunk of await ai.models.generateContentStream({ model: 'gamma-2.5-flash-lite', contents: 'Stream from v1' })) {
      text += chunk.text ?? '';
      total = chunk.usageMetadata?.totalTokenCount ?? total;
    }
    expect(text).toContain('Stream from v1');
    expect(total).toBeGreaterThan(0);
    expect(lastUpstream().path).toBe('/v1beta/models/gemini-2.5-flash-lite:streamGenerateContent');
  });

  it('countTokens, models.list and models.get filtered by the key', async () => {
    const counted = await ai.models.countTokens({ model: 'gamma-2.5-flash-lite', contents: 'one two three' });
    expect(counted.totalTokens).toBeGreaterThan(0);
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name!);
    expect(names.sort()).toEqual(['models/gamma-2.5-flash-lite', 'models/gamma-3.1-flash-image']);
    const model = await ai.models.get({ model: 'gamma-2.5-flash-lite' });
    expect(model).toMatchObject({ name: 'models/gamma-2.5-flash-lite', supportedActions: expect.arrayContaining(['generateContent']) });
  });

  it('function calling round trip: schema-valid args, then a final answer', async () => {
    const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Forecast', parametersJsonSchema: WEATHER_PARAMETERS }] }];
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather in Kyoto?' }] }];
    const first = await ai.models.generateContent({ model: 'gamma-2.5-flash-lite', contents, config: { tools } });
    const call = first.functionCalls![0]!;
    expect(call.name).toBe('get_weather');
    expect(schemaErrors(WEATHER_PARAMETERS, call.args)).toEqual([]);
    contents.push(first.candidates![0]!.content!, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { forecast: 'rain' } } }] });
    const second = await ai.models.generateContent({ model: 'gamma-2.5-flash-lite', contents, config: { tools } });
    expect(second.functionCalls ?? []).toEqual([]);
    expect(second.text).toContain('rain');

    // mode ANY with an OpenAPI-style schema (Type.OBJECT …) forces a call whose args fit it.
    const forced = await ai.models.generateContent({
      model: 'gamma-2.5-flash-lite',
      contents: 'Anything',
      config: {
        tools: [{ functionDeclarations: [{ name: 'set_alarm', parameters: { type: Type.OBJECT, properties: { hour: { type: Type.INTEGER, minimum: 0, maximum: 23 } }, required: ['hour'] } }] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
      },
    });
    const hour = forced.functionCalls![0]!.args!.hour as number;
    expect(Number.isInteger(hour) && hour >= 0 && hour <= 23).toBe(true);
  });

  it('structured output: responseJsonSchema and responseSchema give JSON that validates', async () => {
    const json = await ai.models.generateContent({ model: 'gamma-2.5-flash-lite', contents: 'A recipe', config: { responseMimeType: 'application/json', responseJsonSchema: RECIPE_SCHEMA } });
    expect(schemaErrors(RECIPE_SCHEMA, JSON.parse(json.text!))).toEqual([]);
    const typed = await ai.models.generateContent({
      model: 'gamma-2.5-flash-lite',
      contents: 'A colour',
      config: { responseMimeType: 'application/json', responseSchema: { type: Type.OBJECT, properties: { colour: { type: Type.STRING, enum: ['red', 'green'] } }, required: ['colour'] } },
    });
    expect(['red', 'green']).toContain(JSON.parse(typed.text!).colour);
  });

  it('logprobs when asked (responseLogprobs, logprobs)', async () => {
    const response = await ai.models.generateContent({ model: 'gamma-2.5-flash-lite', contents: 'Hi', config: { responseLogprobs: true, logprobs: 2 } });
    const result = response.candidates![0]!.logprobsResult!;
    expect(result.chosenCandidates!.map((c) => c.token).join('')).toBe(response.text);
    expect(result.topCandidates!.every((t) => t.candidates!.length === 2)).toBe(true);
    const plain = await ai.models.generateContent({ model: 'gamma-2.5-flash-lite', contents: 'Hi' });
    expect(plain.candidates![0]!.logprobsResult).toBeUndefined();
  });

  it('images: the image model streams an inline PNG', async () => {
    let image: string | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: 'gamma-3.1-flash-image', contents: 'a red fox', config: { responseModalities: ['TEXT', 'IMAGE'] } })) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) image ??= part.inlineData?.data;
    }
    expect(Buffer.from(image!, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('errors: an unknown model and a bad key are ApiErrors with a useful message', async () => {
    const badModel = await ai.models.generateContent({ model: 'no-such-model', contents: 'x' }).catch((e: unknown) => e);
    expect(badModel).toBeInstanceOf(ApiError);
    expect((badModel as ApiError).status).toBe(404);
    expect((badModel as ApiError).message).toMatch(/no-such-model/);
    const stranger = new GoogleGenAI({ apiKey: 'sk-gw-wrong', httpOptions: { baseUrl: gateway.url } });
    const badKey = await stranger.models.generateContent({ model: 'gamma-2.5-flash-lite', contents: 'x' }).catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(ApiError);
    expect((badKey as ApiError).status).toBe(401);
    expect((badKey as ApiError).message).toMatch(/API key/i);
  });

  it('the v1beta API version keeps working (apiVersion option)', async () => {
    const beta = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.url, apiVersion: 'v1beta' } });
    const response = await beta.models.generateContent({ model: 'gamma-2.5-flash-lite', contents: 'Hello beta' });
    expect(response.text).toContain('Hello beta');
  });
});
