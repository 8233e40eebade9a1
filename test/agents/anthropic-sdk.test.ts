import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCalls, expectToolLoop, MODELS, settle, startAgentGateway, type AgentGateway, type Setup } from './gateway.js';

/**
 * The Anthropic TypeScript SDK with `baseURL` at the gateway's origin and the key as `apiKey`
 * (sent as `x-api-key`, with `anthropic-version` on every call).
 */

const WEATHER_TOOL: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The current weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
};

const textOf = (message: Anthropic.Message): string => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

const toolUses = (message: Anthropic.Message): Anthropic.ToolUseBlock[] =>
  message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');

describe.each(['defaults', 'cross'] as const)('Anthropic SDK through the gateway (%s)', (setup: Setup) => {
  let gateway: AgentGateway;
  let client: Anthropic;

  beforeAll(async () => {
    gateway = await startAgentGateway(setup);
    client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  const hello: Anthropic.MessageCreateParamsNonStreaming = { model: MODELS.anthropic, max_tokens: 256, messages: [{ role: 'user', content: 'Say hello in one short sentence.' }] };

  it('messages.create answers a one-shot prompt', async () => {
    const mark = gateway.mark();
    const outcome = await settle(() => client.messages.create(hello));
    const calls = await gateway.expectCleanRun(mark, `anthropic-sdk ${setup} create`);
    const message = outcome.value();
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(textOf(message).trim()).not.toBe('');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(calls, describeCalls(calls)).toHaveLength(1);
  });

  it('messages.stream streams the answer as named events', async () => {
    const mark = gateway.mark();
    const events: string[] = [];
    let text = '';
    const outcome = await settle(() => {
      const stream = client.messages.stream(hello);
      stream.on('streamEvent', (event) => events.push(event.type));
      stream.on('text', (delta) => (text += delta));
      return stream.finalMessage();
    });
    const calls = await gateway.expectCleanRun(mark, `anthropic-sdk ${setup} stream`);
    expect(outcome.value()).toMatchObject({ type: 'message', stop_reason: 'end_turn' });
    expect(text.trim()).not.toBe('');
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.at(-1)).toBe('message_stop');
    expect(calls.map((call) => call.streamed)).toEqual([true]);
  });

  it('runs a tool loop to its end (tool_use, tool_result, an answer)', async () => {
    const mark = gateway.mark();
    const outcome = await settle(async () => {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
      const first = await client.messages.create({ model: MODELS.anthropic, max_tokens: 512, tools: [WEATHER_TOOL], messages });
      const uses = toolUses(first);
      if (uses.length === 0) throw new Error(`no tool_use in the first answer: ${JSON.stringify(first)}`);
      messages.push({ role: 'assistant', content: first.content });
      messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'Sunny, 21 °C' })) });
      const final = await client.messages.create({ model: MODELS.anthropic, max_tokens: 512, tools: [WEATHER_TOOL], messages });
      return { first, uses, final };
    });
    const calls = await gateway.expectCleanRun(mark, `anthropic-sdk ${setup} tool-loop`);
    const { first, uses, final } = outcome.value();
    expect(first.stop_reason).toBe('tool_use');
    expect(uses.map((use) => use.name)).toEqual(['get_weather']);
    expect(uses[0]!.input).toEqual({ city: expect.any(String) });
    expect(final.stop_reason).toBe('end_turn');
    expect(textOf(final)).toContain('Sunny');
    expectToolLoop(calls);
  });

  it('streams a tool call (input_json_delta)', async () => {
    const mark = gateway.mark();
    const outcome = await settle(() =>
      client.messages.stream({ model: MODELS.anthropic, max_tokens: 512, tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'What is the weather in Paris?' }] }).finalMessage(),
    );
    await gateway.expectCleanRun(mark, `anthropic-sdk ${setup} stream-tool`);
    const message = outcome.value();
    expect(message.stop_reason).toBe('tool_use');
    expect(toolUses(message)).toEqual([expect.objectContaining({ name: 'get_weather', input: { city: expect.any(String) } })]);
  });

  it('takes system blocks with cache_control', async () => {
    const mark = gateway.mark();
    const outcome = await settle(() =>
      client.messages.create({
        model: MODELS.anthropic,
        max_tokens: 256,
        system: [
          { type: 'text', text: 'You are a terse assistant.' },
          { type: 'text', text: 'Answer in one sentence.', cache_control: { type: 'ephemeral' } },
        ],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.', cache_control: { type: 'ephemeral' } }] }],
      }),
    );
    const calls = await gateway.expectCleanRun(mark, `anthropic-sdk ${setup} system-cache-control`);
    const message = outcome.value();
    expect(message).toMatchObject({ type: 'message', stop_reason: 'end_turn' });
    expect(textOf(message).trim()).not.toBe('');
    expect(calls, describeCalls(calls)).toHaveLength(1);
  });

  it('messages.countTokens counts the input', async () => {
    const mark = gateway.mark();
    const outcome = await settle(() =>
      client.messages.countTokens({ model: MODELS.anthropic, system: 'You are a terse assistant.', tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'What is the weather in Paris?' }] }),
    );
    await gateway.expectCleanRun(mark, `anthropic-sdk ${setup} count-tokens`);
    const count = outcome.value();
    expect(count).toEqual({ input_tokens: expect.any(Number) });
    expect(count.input_tokens).toBeGreaterThan(0);
  });

  it('continues the conversation (a second turn with the history)', async () => {
    const mark = gateway.mark();
    const outcome = await settle(async () => {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Remember the word kumquat.' }];
      const first = await client.messages.create({ model: MODELS.anthropic, max_tokens: 256, messages });
      messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: 'Which word did I ask you to remember?' });
      return client.messages.create({ model: MODELS.anthropic, max_tokens: 256, messages });
    });
    const calls = await gateway.expectCleanRun(mark, `anthropic-sdk ${setup} follow-up`);
    expect(outcome.value()).toMatchObject({ type: 'message', stop_reason: 'end_turn' });
    expect(calls, describeCalls(calls)).toHaveLength(2);
    expect(calls[1]!.requestBody).toContain('kumquat');
  });
});
