import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { parseSseText } from '../../../src/sse/parse.js';
import { OPENAI_QUIRKS } from '../../../src/providers/openai-compatible/quirks.js';
import { responsesToOpenAICompatible, toChatPart } from '../../../src/providers/openai-compatible/from-responses.js';
import { zhipu } from '../../../src/providers/zhipu/index.js';
import { goldenContext, loadCases, runStream } from '../../helpers/golden.js';
import { checkResponsesGoldenCase, payloads } from '../../helpers/responses-golden.js';

const pair = zhipu.pairs.responses!;
const ctx = goldenContext({ model: 'epsilon-4.7', upstreamModel: 'glm-4.7', requestId: 'req_x1' });
const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: 'c1', created: 1, model: 'glm-4.7', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;

describe('responses → zhipu (via the OpenAI-compatible chat translator) golden cases', () => {
  for (const golden of loadCases('zhipu', (name) => name.startsWith('responses-'))) {
    it(`${golden.name}: ${golden.meta.description}`, () => checkResponsesGoldenCase(pair, golden));
  }
});

describe('responses → OpenAI-compatible chat: translation rules', () => {
  it('maps each input part kind to its chat part (input_file as a text reference)', () => {
    expect(toChatPart({ type: 'input_text', text: 'a' })).toEqual({ type: 'text', text: 'a' });
    expect(toChatPart({ type: 'input_image', image_url: 'u', detail: 'low' })).toEqual({ type: 'image_url', image_url: { url: 'u', detail: 'low' } });
    expect(toChatPart({ type: 'input_video', video_url: 'v' })).toEqual({ type: 'video_url', video_url: { url: 'v' } });
    expect(toChatPart({ type: 'input_file', file_url: 'f' })).toEqual({ type: 'text', text: 'File: f' });
  });

  it('an OpenAI-style vendor gets reasoning_effort, the developer role and a stream usage request', () => {
    const openaiStyle = responsesToOpenAICompatible(OPENAI_QUIRKS, { developerRoleAs: 'developer', reasoningEffort: 'reasoning_effort', takesReasoningContent: false, passThroughFields: [] });
    const call = openaiStyle.toUpstream(
      { model: 'm', input: [{ role: 'developer', content: 'x' }], reasoning: { effort: 'minimal' }, stream: true, thinking: { type: 'disabled' } },
      ctx,
    );
    expect(call.body).toEqual({
      model: 'glm-4.7',
      messages: [{ role: 'developer', content: 'x' }],
      reasoning_effort: 'minimal',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('a content-filtered finish (Zhipu "sensitive") is incomplete with reason content_filter', () => {
    const { body } = pair.fromUpstream({ id: 'c', created: 1, model: 'glm-4.7', choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'sensitive' }] }, ctx);
    expect(body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' }, usage: null });
  });

  it("Zhipu's network_error finish is an upstream failure, not a response", () => {
    expect(() => pair.fromUpstream({ choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'network_error' }] }, ctx)).toThrow(GatewayError);
  });

  it('a stream without reasoning_content has only the message item', async () => {
    const events = payloads(await runStream(pair.createStreamTranslator(ctx), chunk({ content: 'Hi' }) + chunk({}, 'stop') + 'data: [DONE]\n\n'));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('a length finish ends the stream with response.incomplete', async () => {
    const events = payloads(await runStream(pair.createStreamTranslator(ctx), chunk({ content: 'Hi' }) + chunk({}, 'length', { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) + 'data: [DONE]\n\n'));
    expect(events.at(-1)).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
    expect(events.at(-2)).toMatchObject({ type: 'response.output_item.done', item: { status: 'incomplete' } });
  });

  it('a stream cut before [DONE] is an error; onError then ends it with response.failed listing the finished items', async () => {
    const translator = pair.createStreamTranslator(ctx);
    const sent: Array<{ type: string; sequence_number: number }> = [];
    for (const event of await parseSseText(chunk({ reasoning_content: 'Hm' }) + chunk({ content: 'Hel' }))) sent.push(...payloads(translator.onEvent(event).map((e) => ({ data: e.data }))));
    expect(() => translator.onEnd()).toThrow(/ended before the response was complete/);
    const [failed] = translator.onError(new GatewayError('GW_UPSTREAM_ERROR', 'cut'));
    expect(failed!.event).toBe('response.failed');
    expect(failed!.data).toMatchObject({
      type: 'response.failed',
      sequence_number: sent.at(-1)!.sequence_number + 1,
      response: { id: 'resp_x1', status: 'failed', error: { code: 'upstream_error', message: 'cut' }, output: [{ type: 'reasoning', status: 'completed' }] },
    });
    expect(sent.map((e) => e.type)).not.toContain('response.completed');
  });
});
