import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const ARK_MODEL = 'beta-seed-1-6-251015';
const ZHIPU_MODEL = 'epsilon-4.7';

describe('POST /v1/responses with the official OpenAI SDK (responses family)', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  const ark = () => gateway.deps.simulators.get('simulator-volcengine-ark')!;
  const zhipu = () => gateway.deps.simulators.get('simulator-zhipu')!;

  beforeAll(async () => {
    gateway = await startTestGateway();
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());

  describe.each([
    { name: 'Ark (pass-through)', model: ARK_MODEL },
    { name: 'Zhipu epsilon-4.7 (translated from chat)', model: ZHIPU_MODEL },
  ])('$name', ({ model }) => {
    it('non-stream: a completed Response with output_text, reasoning and usage', async () => {
      const response = await client.responses.create({ model, input: 'Say hello to the gateway' });
      expect(response.object).toBe('response');
      expect(response.id).toMatch(/^resp_/);
      expect(response.model).toBe(model);
      expect(response.status).toBe('completed');
      expect(response.output_text).toContain('Say hello to the gateway');
      expect(response.created_at).toEqual(expect.any(Number));
      expect(response.completed_at).toBeGreaterThanOrEqual(response.created_at);
      const [reasoning, message] = response.output;
      expect(reasoning?.type).toBe('reasoning');
      expect(message).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text' }] });
      const usage = response.usage!;
      expect(usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
      expect(usage.output_tokens).toBeGreaterThan(usage.output_tokens_details.reasoning_tokens);
      expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    });

    it('stream: deltas add up to the final output_text, ending in response.completed with usage', async () => {
      const stream = await client.responses.create({ model, input: 'Stream a reply please', stream: true });
      const types: string[] = [];
      let text = '';
      let reasoningText = '';
      let final: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.reasoning_summary_text.delta') reasoningText += event.delta;
        if (event.type === 'response.completed') final = event.response;
      }
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      expect(final!.status).toBe('completed');
      expect(final!.model).toBe(model);
      const message = final!.output.find((item) => item.type === 'message');
      expect(message).toMatchObject({ content: [{ type: 'output_text', text }] });
      expect(text).toContain('Stream a reply please');
      expect(reasoningText.length).toBeGreaterThan(0);
      expect(final!.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    });

    it('max_output_tokens cuts the text: status incomplete with reason max_output_tokens', async () => {
      const response = await client.responses.create({ model, input: 'A long answer, please', max_output_tokens: 3 });
      expect(response.status).toBe('incomplete');
      expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
      expect(response.usage!.output_tokens - response.usage!.output_tokens_details.reasoning_tokens).toBe(3);
    });
  });

  it('Ark receives /api/v3/responses with its own model id and every other field passed on', async () => {
    const before = ark().requests.length;
    await client.responses.create({
      model: ARK_MODEL,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      instructions: 'Be brief.',
      temperature: 0.5,
      reasoning: { effort: 'low' },
      // Ark's own switch, not in the OpenAI types: passed on untouched.
      ...({ thinking: { type: 'disabled' } } as object),
    });
    const sent = ark().requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/api/v3/responses');
    expect(sent[0]!.body).toEqual({
      model: 'doubao-seed-1-6-251015',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      instructions: 'Be brief.',
      temperature: 0.5,
      reasoning: { effort: 'low' },
      thinking: { type: 'disabled' },
    });
  });

  it('thinking disabled on Ark: no reasoning item and no reasoning tokens', async () => {
    const response = await client.responses.create({ model: ARK_MODEL, input: 'hi', ...({ thinking: { type: 'disabled' } } as object) });
    expect(response.output.map((item) => item.type)).toEqual(['message']);
    expect(response.usage!.output_tokens_details.reasoning_tokens).toBe(0);
  });

  it('Zhipu receives /api/paas/v4/chat/completions with the input translated to chat messages', async () => {
    const before = zhipu().requests.length;
    const stream = await client.responses.create({
      model: ZHIPU_MODEL,
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Answer in English.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Describe these' },
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' },
            // input_video and input_file are gateway extensions of the Responses input parts.
            ...([{ type: 'input_video', video_url: 'https://example.com/v.mp4', fps: 1 }, { type: 'input_file', file_url: 'https://example.com/d.pdf' }] as never[]),
          ],
        },
      ],
      max_output_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: 'none' },
      stream: true,
    });
    for await (const _ of stream) void _;
    const sent = zhipu().requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/api/paas/v4/chat/completions');
    expect(sent[0]!.body).toEqual({
      model: 'glm-4.7',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Answer in English.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe these' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'auto' } },
            { type: 'video_url', video_url: { url: 'https://example.com/v.mp4', fps: 1 } },
            { type: 'text', text: 'File: https://example.com/d.pdf' },
          ],
        },
      ],
      max_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      thinking: { type: 'disabled' },
      stream: true,
    });
  });

  it('input parts of each kind are accepted on the pass-through path', async () => {
    const before = ark().requests.length;
    const content = [
      { type: 'input_text', text: 'What is in these?' },
      { type: 'input_image', image_url: 'https://example.com/a.png' },
      { type: 'input_video', video_url: 'https://example.com/v.mp4', fps: 2 },
      { type: 'input_file', file_url: 'https://example.com/d.pdf' },
    ];
    const response = await client.responses.create({ model: 'beta-seed-1-6-vision-250815', input: [{ type: 'message', role: 'user', content: content as never }] });
    expect(response.status).toBe('completed');
    expect(response.output_text).toContain('What is in these?');
    expect((ark().requests[before]!.body as { input: unknown }).input).toEqual([{ type: 'message', role: 'user', content }]);
  });

  it('an upstream 429 reaches the SDK as a RateLimitError in the general envelope', async () => {
    zhipu().setOptions({ fault_status: 429, fault_times: 1 });
    try {
      await expect(client.responses.create({ model: ZHIPU_MODEL, input: 'hi' })).rejects.toMatchObject({
        status: 429,
        error: { type: 'rate_limit_error', code: 'upstream_rate_limited' },
      });
    } finally {
      zhipu().setOptions({});
    }
  });
});
