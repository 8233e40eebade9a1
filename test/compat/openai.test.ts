import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { RECIPE_SCHEMA, schemaErrors, WEATHER_PARAMETERS } from './schema-check.js';

/** The `openai` npm package, current major (7.x), pointed at the gateway: base URL and key only (issue 16). */
describe('compat: openai 7.x', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway();
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  const weatherTool: OpenAI.Chat.Completions.ChatCompletionFunctionTool = {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather forecast for a city', parameters: WEATHER_PARAMETERS as never, strict: true },
  };

  it('chat: a completion with usage', async () => {
    const completion = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(completion.choices[0]!.message.content).toContain('Say hello');
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
  });

  it('chat: stream with usage', async () => {
    const stream = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toContain('Stream please');
    expect(usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('chat: tool round trip — schema-valid arguments, then a final answer that reads the result', async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris this week?' }];
    const first = await client.chat.completions.create({ model: 'delta-4.1', messages, tools: [weatherTool] });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    const args = JSON.parse(call.type === 'function' ? call.function.arguments : 'null');
    expect(schemaErrors(WEATHER_PARAMETERS, args)).toEqual([]);

    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '{"forecast":"sunny, 24°C"}' });
    const second = await client.chat.completions.create({ model: 'delta-4.1', messages, tools: [weatherTool] });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(second.choices[0]!.message.content).toContain('sunny, 24°C');
  });

  it('chat: runTools drives the agent loop to its end', async () => {
    const runner = client.chat.completions.runTools({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Forecast', parameters: WEATHER_PARAMETERS as never, function: (args: unknown) => ({ seen: args, forecast: 'snow' }), parse: JSON.parse } }],
    });
    expect(await runner.finalContent()).toContain('snow');
  });

  it('chat: tool_choice none, a named function, and parallel_tool_calls', async () => {
    const timeTool: OpenAI.Chat.Completions.ChatCompletionFunctionTool = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } };
    const content = 'Weather and time in Rome?';
    const none = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content }], tools: [weatherTool, timeTool], tool_choice: 'none' });
    expect(none.choices[0]!.message.tool_calls ?? []).toEqual([]);
    // Several calls in one turn only when asked for explicitly (issue 20: models mostly call one tool at a time).
    const parallel = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content }], tools: [weatherTool, timeTool], parallel_tool_calls: true });
    expect(parallel.choices[0]!.message.tool_calls!.map((c) => c.type === 'function' && c.function.name)).toEqual(['get_weather', 'get_time']);
    const unasked = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content }], tools: [weatherTool, timeTool] });
    expect(unasked.choices[0]!.message.tool_calls).toHaveLength(1);
    const single = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content }], tools: [weatherTool, timeTool], parallel_tool_calls: false });
    expect(single.choices[0]!.message.tool_calls).toHaveLength(1);
    const named = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Anything' }], tools: [weatherTool, timeTool], tool_choice: { type: 'function', function: { name: 'get_time' } } });
    const call = named.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_time');
    expect(typeof JSON.parse(call.type === 'function' ? call.function.arguments : '{}').zone).toBe('string');
  });

  it('chat: structured output with json_schema parses and validates (zodResponseFormat and parse())', async () => {
    const Recipe = z.object({ title: z.string(), servings: z.number().int().min(1).max(12), vegetarian: z.boolean(), tags: z.array(z.enum(['quick', 'cheap', 'fancy'])) });
    const parsed = await client.chat.completions.parse({ model: 'delta-4.1', messages: [{ role: 'user', content: 'A soup recipe' }], response_format: zodResponseFormat(Recipe, 'recipe') });
    const recipe = parsed.choices[0]!.message.parsed!;
    expect(Recipe.parse(recipe)).toEqual(recipe);

    const raw = await client.chat.completions.create({
      model: 'delta-4.1',
      messages: [{ role: 'user', content: 'Another recipe' }],
      response_format: { type: 'json_schema', json_schema: { name: 'recipe', schema: RECIPE_SCHEMA as never, strict: true } },
    });
    expect(schemaErrors(RECIPE_SCHEMA, JSON.parse(raw.choices[0]!.message.content!))).toEqual([]);
    const object = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'json' }], response_format: { type: 'json_object' } });
    expect(JSON.parse(object.choices[0]!.message.content!)).toEqual(expect.any(Object));
  });

  it('chat: logprobs and top_logprobs when asked', async () => {
    const completion = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hi' }], logprobs: true, top_logprobs: 3 });
    const logprobs = completion.choices[0]!.logprobs!.content!;
    expect(logprobs.map((l) => l.token).join('')).toBe(completion.choices[0]!.message.content);
    for (const entry of logprobs) {
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.top_logprobs).toHaveLength(3);
    }
    const plain = await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hi' }] });
    expect(plain.choices[0]!.logprobs ?? null).toBeNull();

    const response = await client.responses.create({ model: 'beta-seed-2.0-lite', input: 'Hi', include: ['message.output_text.logprobs'], top_logprobs: 2 });
    const part = response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).find((c) => c.type === 'output_text')!;
    expect(part.type === 'output_text' && part.logprobs!.map((l) => l.token).join('')).toBe(response.output_text);
    expect(part.type === 'output_text' && part.logprobs!.every((l) => l.top_logprobs.length === 2)).toBe(true);
  });

  it('responses: create, stream, structured output and previous_response_id refused with a clear 400', async () => {
    const response = await client.responses.create({ model: 'beta-seed-2.0-lite', input: 'Tell me a joke' });
    expect(response.output_text).toContain('Tell me a joke');
    const stream = await client.responses.create({ model: 'beta-seed-2.0-lite', input: 'Stream a joke', stream: true });
    let text = '';
    let completed = false;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = true;
    }
    expect(completed).toBe(true);
    expect(text).toContain('Stream a joke');

    const Person = z.object({ name: z.string(), age: z.number().int().min(0).max(150) });
    const parsed = await client.responses.parse({ model: 'beta-seed-2.0-lite', input: 'Invent a person', text: { format: zodTextFormat(Person, 'person') } });
    expect(Person.parse(parsed.output_parsed)).toEqual(parsed.output_parsed);

    const refused = await client.responses.create({ model: 'beta-seed-2.0-lite', input: 'And then?', previous_response_id: response.id }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).message).toMatch(/previous_response_id/);
  });

  // beta-seed-2.0-lite is served by a native Responses upstream; epsilon-4.7 through the chat translation.
  it.each(['beta-seed-2.0-lite', 'epsilon-4.7'])('responses (%s): tool round trip with function_call and function_call_output items', async (model) => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', parameters: WEATHER_PARAMETERS as never, strict: true }];
    const first = await client.responses.create({ model, input: [{ role: 'user', content: 'Weather in Lima?' }], tools });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toBeDefined();
    expect(call.type === 'function_call' && schemaErrors(WEATHER_PARAMETERS, JSON.parse(call.arguments))).toEqual([]);
    const second = await client.responses.create({
      model,
      tools,
      input: [{ role: 'user', content: 'Weather in Lima?' }, call as OpenAI.Responses.ResponseFunctionToolCall, { type: 'function_call_output', call_id: (call as OpenAI.Responses.ResponseFunctionToolCall).call_id, output: 'foggy' }],
    });
    expect(second.output.some((item) => item.type === 'function_call')).toBe(false);
    expect(second.output_text).toContain('foggy');

    const stream = await client.responses.create({ model, input: [{ role: 'user', content: 'Weather in Lima?' }], tools, stream: true });
    let streamed: OpenAI.Responses.ResponseOutputItem | undefined;
    let argumentsText = '';
    for await (const event of stream) {
      if (event.type === 'response.function_call_arguments.delta') argumentsText += event.delta;
      if (event.type === 'response.completed') streamed = event.response.output.find((item) => item.type === 'function_call');
    }
    expect(streamed?.type === 'function_call' && streamed.arguments).toBe(argumentsText);
    expect(schemaErrors(WEATHER_PARAMETERS, JSON.parse(argumentsText))).toEqual([]);
  });

  it('images: b64_json and the default answer both carry the image', async () => {
    const asked = await client.images.generate({ model: 'gamma-3.1-flash-image', prompt: 'a lighthouse', response_format: 'b64_json' });
    expect(Buffer.from(asked.data![0]!.b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const plain = await client.images.generate({ model: 'gamma-3.1-flash-image', prompt: 'a lighthouse' });
    expect(plain.data![0]!.b64_json ?? plain.data![0]!.url).toEqual(expect.any(String));
  });

  it('errors: a bad model and a bad key are typed errors with a useful message', async () => {
    const badModel = await client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(badModel).toBeInstanceOf(BadRequestError);
    expect((badModel as BadRequestError).message).toMatch(/model/);
    // Family B passes tools on unchecked; the simulator answers a malformed one as OpenAI does (a 400), not a 5xx.
    const badTool = await client.chat.completions.create({ model: 'beta-seed-2.0-lite', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function' } as never] }).catch((e: unknown) => e);
    expect(badTool).toBeInstanceOf(BadRequestError);
    expect((badTool as BadRequestError).message).toMatch(/tools\[0\]/);
    const unknownModel = await client.models.retrieve('no-such-model').catch((e: unknown) => e);
    expect(unknownModel).toBeInstanceOf(NotFoundError);
    const stranger = new OpenAI({ apiKey: 'sk-gw-wrong', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const badKey = await stranger.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(AuthenticationError);
    expect((badKey as AuthenticationError).message).toMatch(/API key/i);
  });

  it('models: list and retrieve in the OpenAI shape', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain('delta-4.1');
    expect(await client.models.retrieve('gamma-2.5-flash-lite')).toMatchObject({ id: 'gamma-2.5-flash-lite', object: 'model' });
  });
});
