import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool, type AgentInputItem, type Model } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeCalls, expectToolLoop, MODELS, settle, startAgentGateway, type AgentGateway, type Setup } from './gateway.js';

/**
 * The OpenAI Agents SDK on an `OpenAI` client whose `baseURL` is the gateway's /v1, with a
 * Responses model (`/v1/responses`, no `store`, the whole history resent each turn) and with a
 * chat model (`/v1/chat/completions`; assistant turns with `tool_calls` have `content: null`).
 */

// Traces would go to the vendor's own tracing endpoint: nothing but the gateway is called.
setTracingDisabled(true);

const getWeather = tool({
  name: 'get_weather',
  description: 'The current weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `Sunny, 21 °C in ${city}`,
});

const MODEL_KINDS = {
  responses: (client: OpenAI): Model => new OpenAIResponsesModel(client, MODELS.openai),
  chat: (client: OpenAI): Model => new OpenAIChatCompletionsModel(client, MODELS.openai),
};

describe.each(['defaults', 'cross'] as const)('OpenAI Agents SDK through the gateway (%s)', (setup: Setup) => {
  let gateway: AgentGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startAgentGateway(setup);
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  describe.each(Object.keys(MODEL_KINDS) as (keyof typeof MODEL_KINDS)[])('with a %s model', (kind) => {
    const agent = (withTools: boolean) =>
      new Agent({ name: 'Assistant', instructions: 'You are a helpful assistant.', model: MODEL_KINDS[kind](client), tools: withTools ? [getWeather] : [] });
    const label = (name: string) => `openai-agents ${kind} ${setup} ${name}`;

    it('answers a one-shot prompt', async () => {
      const mark = gateway.mark();
      const outcome = await settle(() => run(agent(false), 'Say hello in one short sentence.'));
      const calls = await gateway.expectCleanRun(mark, label('one-shot'));
      expect(String(outcome.value().finalOutput).trim()).not.toBe('');
      expect(calls, describeCalls(calls)).toHaveLength(1);
    });

    it('streams the answer', async () => {
      const mark = gateway.mark();
      let text = '';
      const outcome = await settle(async () => {
        const result = await run(agent(false), 'Say hello in one short sentence.', { stream: true });
        for await (const delta of result.toTextStream()) text += delta;
        await result.completed;
        return result;
      });
      const calls = await gateway.expectCleanRun(mark, label('stream'));
      expect(String(outcome.value().finalOutput).trim()).not.toBe('');
      expect(text.trim()).not.toBe('');
      expect(calls.map((call) => call.streamed)).toEqual([true]);
    });

    it('runs a tool loop to its end (get_weather, then an answer)', async () => {
      const mark = gateway.mark();
      const outcome = await settle(() => run(agent(true), 'What is the weather in Paris?'));
      const calls = await gateway.expectCleanRun(mark, label('tool-loop'));
      const result = outcome.value();
      const items = result.newItems.map((item) => item.type);
      expect(items.filter((type) => type === 'tool_call_item')).toHaveLength(1);
      expect(items.filter((type) => type === 'tool_call_output_item')).toHaveLength(1);
      expect(String(result.finalOutput)).toContain('Sunny');
      expectToolLoop(calls);
    });

    it('continues the conversation (a second run with the history)', async () => {
      const mark = gateway.mark();
      const outcome = await settle(async () => {
        const first = await run(agent(true), 'Remember the word kumquat.');
        const history: AgentInputItem[] = [...first.history, { role: 'user', content: 'Which word did I ask you to remember?' }];
        return run(agent(true), history);
      });
      const calls = await gateway.expectCleanRun(mark, label('follow-up'));
      expect(String(outcome.value().finalOutput).trim()).not.toBe('');
      expect(calls, describeCalls(calls)).toHaveLength(2);
      expect(calls[1]!.requestBody).toContain('kumquat');
    });
  });
});
