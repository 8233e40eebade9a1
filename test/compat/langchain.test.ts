import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/** LangChain JS (`@langchain/openai` ChatOpenAI) against the gateway: base URL and key only (issue 16). */
describe('compat: LangChain ChatOpenAI', () => {
  let gateway: TestGateway;
  let model: ChatOpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway();
    model = new ChatOpenAI({ model: 'delta-4.1', apiKey: TEST_KEY, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  it('invoke, with usage metadata', async () => {
    const reply = await model.invoke('Hello LangChain');
    expect(reply.content).toContain('Hello LangChain');
    expect(reply.usage_metadata!.total_tokens).toBeGreaterThan(0);
  });

  it('stream, with usage at the end', async () => {
    let text = '';
    let outputTokens = 0;
    for await (const chunk of await model.stream('Stream LangChain')) {
      text += typeof chunk.content === 'string' ? chunk.content : '';
      outputTokens += chunk.usage_metadata?.output_tokens ?? 0;
    }
    expect(text).toContain('Stream LangChain');
    expect(outputTokens).toBeGreaterThan(0);
  });

  it('bindTools: a tool loop ends with a final answer', async () => {
    const getWeather = tool(async ({ city }: { city: string }) => `Clear skies in ${city}`, {
      name: 'get_weather',
      description: 'Weather for a city',
      schema: z.object({ city: z.string().min(1), unit: z.enum(['c', 'f']).optional() }),
    });
    const withTools = model.bindTools([getWeather]);
    const messages: BaseMessage[] = [new HumanMessage('What is the weather like in Madrid?')];
    const first = (await withTools.invoke(messages)) as AIMessage;
    expect(first.tool_calls).toHaveLength(1);
    const call = first.tool_calls![0]!;
    expect(call.name).toBe('get_weather');
    const args = z.object({ city: z.string().min(1), unit: z.enum(['c', 'f']).optional() }).parse(call.args);
    messages.push(first, new ToolMessage({ tool_call_id: call.id!, content: await getWeather.invoke(args) }));
    const second = (await withTools.invoke(messages)) as AIMessage;
    expect(second.tool_calls ?? []).toEqual([]);
    expect(second.content).toContain('Clear skies in');
  });

  it('withStructuredOutput gives an object that validates', async () => {
    const Movie = z.object({ title: z.string(), year: z.number().int().min(1900).max(2030), genres: z.array(z.enum(['drama', 'comedy', 'sci-fi'])) });
    const structured = model.withStructuredOutput(Movie, { name: 'movie' });
    const movie = await structured.invoke('Recommend a movie');
    expect(Movie.parse(movie)).toEqual(movie);
  });

  it('the Responses API (useResponsesApi), with a tool call', async () => {
    const responses = new ChatOpenAI({ model: 'beta-seed-2.0-lite', apiKey: TEST_KEY, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0, useResponsesApi: true });
    const reply = await responses.invoke('Hello Responses');
    expect(reply.text).toContain('Hello Responses');
    const lookup = tool(async () => 'ok', { name: 'lookup_order', description: 'Find an order', schema: z.object({ order_id: z.string() }) });
    const called = (await responses.bindTools([lookup]).invoke('Where is my order?')) as AIMessage;
    expect(called.tool_calls![0]).toMatchObject({ name: 'lookup_order', args: { order_id: expect.any(String) } });
  });

  it('errors: a bad model and a bad key throw with the gateway message', async () => {
    const wrongModel = new ChatOpenAI({ model: 'no-such-model', apiKey: TEST_KEY, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0 });
    const badModel = await wrongModel.invoke('x').catch((e: Error) => e);
    expect((badModel as Error & { status?: number }).status).toBe(400);
    expect((badModel as Error).message).toMatch(/model/);
    const stranger = new ChatOpenAI({ model: 'delta-4.1', apiKey: 'sk-gw-wrong', configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0 });
    const badKey = await stranger.invoke('x').catch((e: Error) => e);
    expect((badKey as Error & { status?: number }).status).toBe(401);
    expect((badKey as Error).message).toMatch(/API key/i);
  });
});
