import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import {
  AGENTS_SDK_WEATHER_TOOL,
  agentsSdkResends,
  agentsSdkToolOutput,
  codexFirstRequest,
  codexHeaders,
  codexResends,
  codexToolOutput,
  codexUserMessage,
} from '../../helpers/agent-requests.js';

type Item = Record<string, unknown>;
interface Completed {
  status: string;
  output: Item[];
}

const ARK = 'beta-seed-2.0-code';
const ZHIPU = 'epsilon-4.7';

/**
 * Agent tool loops on POST /v1/responses over real HTTP with the official SDK (issue 20): Codex's
 * own first request (captured), its history resent whole each turn with reasoning items
 * (encrypted_content), function calls, tool outputs and assistant messages, `store: false`,
 * `include`, `prompt_cache_key`, namespace and web_search tools; and the OpenAI Agents SDK's
 * shape. On a Responses upstream (Ark) and on a chat upstream (Zhipu). Every turn is a 200 and
 * the loop ends with text.
 */
describe('agent tool loops on /v1/responses (issue 20)', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  const simulator = (model: string) => gateway.deps.simulators.get(model === ARK ? 'simulator-volcengine-ark' : 'simulator-zhipu')!;

  beforeAll(async () => {
    gateway = await startTestGateway();
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  /** One Codex turn: streamed, as Codex asks; the response of `response.completed`. */
  async function codexTurn(body: Record<string, unknown>): Promise<Completed> {
    const stream = await client.responses.create(body as never, { headers: codexHeaders() });
    let completed: Completed | undefined;
    const types: string[] = [];
    for await (const event of stream as unknown as AsyncIterable<{ type: string; response?: Completed }>) {
      types.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types.at(-1)).toBe('response.completed');
    return completed!;
  }

  const calls = (response: Completed) => response.output.filter((item) => item.type === 'function_call');
  const text = (response: Completed) =>
    response.output
      .filter((item) => item.type === 'message')
      .flatMap((item) => item.content as Array<{ text: string }>)
      .map((part) => part.text)
      .join('');

  describe.each([
    { name: 'Ark (Responses pass-through)', model: ARK },
    { name: 'Zhipu (translated to chat)', model: ZHIPU },
  ])('Codex on $name', ({ model }) => {
    it('a tool loop, a follow-up turn and a namespace tool, each turn a 200, ending in text', async () => {
      const first = codexFirstRequest(model, 'Use exec_command to print hello');
      expect(first).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], prompt_cache_key: expect.any(String), parallel_tool_calls: true });
      expect(first.tools.map((t) => t.type)).toEqual(expect.arrayContaining(['function', 'namespace', 'web_search']));

      // Turn 1: the model calls exec_command, once, with arguments Codex accepts.
      const turn1 = await codexTurn(first);
      expect(turn1.status).toBe('completed');
      expect(calls(turn1)).toHaveLength(1);
      expect(calls(turn1)[0]).toMatchObject({ name: 'exec_command', call_id: expect.any(String) });
      expect(JSON.parse(calls(turn1)[0]!.arguments as string)).toEqual({ cmd: 'echo hello' });
      const reasoning = turn1.output.find((item) => item.type === 'reasoning')!;
      if (model === ARK) expect(reasoning.encrypted_content).toEqual(expect.any(String));

      // Turn 2: the whole history resent (reasoning with encrypted_content, the call, its output): a text answer.
      const input2 = [...first.input, ...codexResends(turn1.output), codexToolOutput(calls(turn1)[0]!.call_id as string, 'Process exited with code 0\nOutput:\nhello\n')];
      const turn2 = await codexTurn({ ...first, input: input2 });
      expect(calls(turn2)).toEqual([]);
      expect(text(turn2)).toContain('hello');
      if (model === ARK) {
        // Passed through unchanged: every item, in order (the simulator also checked the encrypted reasoning).
        expect((simulator(model).requests.at(-1)!.body as { input: unknown }).input).toEqual(input2);
      } else {
        const sent = simulator(model).requests.at(-1)!.body as { messages: Item[]; tools: Item[] };
        expect(sent.messages.at(-2)).toMatchObject({ role: 'assistant', content: null, reasoning_content: expect.any(String), tool_calls: [{ function: { name: 'exec_command' } }] });
        expect(sent.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: calls(turn1)[0]!.call_id });
        expect(sent.tools).toContainEqual({ type: 'web_search', web_search: { enable: true, search_engine: 'search_std', search_result: true } });
        expect(sent.tools).toContainEqual(expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'multi_agent_v1--spawn_agent' }) }));
      }

      // Turn 3: a follow-up after the assistant's answer calls a function of the namespace tool.
      const input3 = [...input2, ...codexResends(turn2.output), codexUserMessage('Now spawn_agent to review it', 'msg_follow_up')];
      const turn3 = await codexTurn({ ...first, input: input3 });
      expect(calls(turn3)).toHaveLength(1);
      expect(calls(turn3)[0]).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });

      // Turn 4: its result; the loop ends with text.
      const input4 = [...input3, ...codexResends(turn3.output), codexToolOutput(calls(turn3)[0]!.call_id as string, '{"agent_id":"agent-1"}')];
      const turn4 = await codexTurn({ ...first, input: input4 });
      expect(calls(turn4)).toEqual([]);
      expect(text(turn4)).toContain('agent-1');
    });

    it('"Say hi" gets text, not a tool call, though the instructions name every tool', async () => {
      const turn = await codexTurn(codexFirstRequest(model, 'Say hi'));
      expect(calls(turn)).toEqual([]);
      expect(text(turn)).toContain('Say hi');
    });
  });

  describe.each([
    { name: 'Ark', model: ARK },
    { name: 'Zhipu', model: ZHIPU },
  ])('OpenAI Agents SDK shape on $name', ({ model }) => {
    it.each([false, true])('instructions + input, include: [], stream %s: tool loop and a second turn', async (stream) => {
      const base = { model, instructions: 'You are helpful.', include: [], tools: [AGENTS_SDK_WEATHER_TOOL], stream };
      const turn = async (input: Item[]): Promise<Completed> => {
        if (!stream) return (await client.responses.create({ ...base, input } as never)) as unknown as Completed;
        return codexTurn({ ...base, input });
      };
      const input1: Item[] = [{ role: 'user', content: 'Weather in Oslo?' }];
      const turn1 = await turn(input1);
      expect(calls(turn1)).toHaveLength(1);
      expect(JSON.parse(calls(turn1)[0]!.arguments as string)).toEqual({ city: expect.any(String) });
      const input2 = [...input1, ...agentsSdkResends(turn1.output), agentsSdkToolOutput(calls(turn1)[0]!.call_id as string, 'sunny in Oslo')];
      const turn2 = await turn(input2);
      expect(text(turn2)).toContain('sunny in Oslo');
      const turn3 = await turn([...input2, ...agentsSdkResends(turn2.output), { role: 'user', content: 'And thanks' }]);
      expect(calls(turn3)).toEqual([]);
      expect(text(turn3)).toContain('And thanks');
    });
  });

  it('on a chat upstream, what chat cannot carry is a 400 naming it, in the general envelope', async () => {
    const patchTool = { type: 'custom', name: 'apply_patch', description: 'Apply a patch' };
    const refused = await client.responses.create({ model: ZHIPU, input: 'Patch it', tools: [patchTool] } as never).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("'tools[0]': a custom tool is not supported for this model");
    // The same tool on a Responses upstream is passed on, and the model may call it.
    const passed = (await client.responses.create({ model: ARK, input: 'Use apply_patch', tools: [patchTool] } as never)) as unknown as Completed;
    expect(passed.output.find((item) => item.type === 'custom_tool_call')).toMatchObject({ name: 'apply_patch', input: expect.any(String) });
  });
});
