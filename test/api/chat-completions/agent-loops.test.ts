import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { AGENTS_SDK_WEATHER_TOOL } from '../../helpers/agent-requests.js';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const WEATHER_TOOL: OpenAI.Chat.Completions.ChatCompletionFunctionTool = {
  type: 'function',
  function: { name: AGENTS_SDK_WEATHER_TOOL.name, description: AGENTS_SDK_WEATHER_TOOL.description, parameters: AGENTS_SDK_WEATHER_TOOL.parameters, strict: true },
};

/**
 * The OpenAI Agents SDK's chat model on family B (issue 20): its assistant turn that carried
 * tool calls comes back with `content: null`, the tool's result as a `tool` message, and a later
 * assistant text as text parts (captured from @openai/agents 0.20). Every turn is a 200 and the
 * loop ends with text, on an Ark and on a Zhipu channel.
 */
describe('agent tool loop on /v1/chat/completions, family B (issue 20)', () => {
  let gateway: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startTestGateway();
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  it.each(['beta-seed-2.0-pro', 'epsilon-4.7'])('%s: content null with tool_calls, a tool message, then a follow-up turn', async (model) => {
    const history: Message[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Weather in Oslo?' },
    ];
    const first = await client.chat.completions.create({ model, messages: history, tools: [WEATHER_TOOL] });
    const calls = first.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(1);
    const toolCall = calls[0]!;
    expect(toolCall.type === 'function' && JSON.parse(toolCall.function.arguments)).toEqual({ city: expect.any(String) });

    history.push({ role: 'assistant', content: null, tool_calls: calls }, { role: 'tool', tool_call_id: toolCall.id, content: 'sunny in Oslo' });
    const second = await client.chat.completions.create({ model, messages: history, tools: [WEATHER_TOOL] });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content).toContain('sunny in Oslo');

    // The SDK sends the assistant's text back as text parts carrying their role.
    history.push({ role: 'assistant', content: [{ type: 'text', text: second.choices[0]!.message.content!, role: 'assistant' } as never] }, { role: 'user', content: 'And thanks' });
    const third = await client.chat.completions.create({ model, messages: history, tools: [WEATHER_TOOL] });
    expect(third.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(third.choices[0]!.message.content).toContain('And thanks');
  });

  it('content null is refused where it means nothing: a user turn, an assistant turn without tool_calls; a tool message needs its call id', async () => {
    const model = 'beta-seed-2.0-pro';
    const userNull = await call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: null }] });
    expect(userNull.status).toBe(400);
    expect(userNull.json.error.message).toContain("'messages[0].content'");
    const assistantNull = await call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null }] });
    expect(assistantNull.status).toBe(400);
    expect(assistantNull.json.error.message).toContain("'messages[1].tool_calls' is required");
    const orphan = await call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: 'r' }] });
    expect(orphan.status).toBe(400);
    expect(orphan.json.error.message).toContain("'messages[1].tool_call_id' is required");
  });
});
