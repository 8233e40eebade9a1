import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const MODEL = 'beta-seed-2.0-mini';
const valid = { model: MODEL, input: 'hi', max_output_tokens: 5 };
const message = (content: unknown, extra: Record<string, unknown> = {}) => ({ input: [{ role: 'user', content, ...extra }] });
const part = (p: Record<string, unknown>) => message([p]);

/** At the bound: accepted (200). */
const ACCEPTED: Array<[string, Record<string, unknown>]> = [
  ['temperature 0', { temperature: 0 }],
  ['temperature 2', { temperature: 2 }],
  ['top_p 0', { top_p: 0 }],
  ['top_p 1', { top_p: 1 }],
  ['max_output_tokens 1', { max_output_tokens: 1 }],
  ['input of one character', { input: 'x' }],
  ['input of one message', message('hi')],
  ['message with type "message"', message('hi', { type: 'message' })],
  ...(['user', 'assistant', 'system', 'developer'] as const).map((role): [string, Record<string, unknown>] => [
    `role ${role}`,
    { input: [{ role, content: 'hi' }, ...(role === 'user' ? [] : [{ role: 'user', content: 'hi' }])] },
  ]),
  ['input_text part', part({ type: 'input_text', text: 'hi' })],
  ['input_image part', part({ type: 'input_image', image_url: 'https://example.com/a.png' })],
  ['input_video part with fps', part({ type: 'input_video', video_url: 'https://example.com/v.mp4', fps: 0.5 })],
  ['input_video part without fps', part({ type: 'input_video', video_url: 'https://example.com/v.mp4' })],
  ['input_file part', part({ type: 'input_file', file_url: 'https://example.com/d.pdf' })],
  ...['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map((effort): [string, Record<string, unknown>] => [`reasoning.effort ${effort}`, { reasoning: { effort } }]),
  ['reasoning.effort null', { reasoning: { effort: null } }],
  ['reasoning.summary auto', { reasoning: { summary: 'auto' } }],
  ['reasoning.summary detailed', { reasoning: { summary: 'detailed', effort: 'low' } }],
  ['stream false', { stream: false }],
  ['an unlisted field (passed on)', { metadata: { source: 'test' }, store: false }],
  ['the other beta-family model', { model: 'epsilon-4.7' }],
];

/** Just past the bound: 400 in the general envelope, naming the field and rule. */
const REJECTED: Array<[string, Record<string, unknown>, string]> = [
  ['temperature below 0', { temperature: -0.01 }, "'temperature' must be greater than or equal to 0"],
  ['temperature above 2', { temperature: 2.01 }, "'temperature' must be less than or equal to 2"],
  ['top_p below 0', { top_p: -0.01 }, "'top_p' must be greater than or equal to 0"],
  ['top_p above 1', { top_p: 1.01 }, "'top_p' must be less than or equal to 1"],
  ['max_output_tokens 0', { max_output_tokens: 0 }, "'max_output_tokens' must be greater than or equal to 1"],
  ['max_output_tokens not an integer', { max_output_tokens: 1.5 }, "'max_output_tokens' must be of type integer"],
  ['model outside the family', { model: 'delta-4.1' }, "'model' must be one of: beta-seed-2.0-pro"],
  ['model missing', { model: undefined }, "'model' is required"],
  ['input missing', { input: undefined }, "'input' is required"],
  ['input empty string', { input: '' }, "'input' must not be shorter than 1 character(s)"],
  ['input empty array', { input: [] }, "'input' must have at least 1 item(s)"],
  ['input a number', { input: 5 }, "'input' must be of type string or array"],
  ['input item not an object', { input: ['hi'] }, "'input[0]' must be of type object"],
  ['role tool', { input: [{ role: 'tool', content: 'hi' }] }, "'input[0].role' must be one of: user, assistant, system, developer"],
  ['role missing', { input: [{ content: 'hi' }] }, "'input[0].role' is required"],
  ['item type outside those accepted', message('hi', { type: 'item_reference' }), "'input[0].type' must be one of: message, reasoning, function_call, function_call_output, custom_tool_call, custom_tool_call_output, web_search_call"],
  ['function_call_output item without call_id (issue 20)', message('hi', { type: 'function_call_output' }), "'input[0].call_id' is required"],
  ['content missing', { input: [{ role: 'user' }] }, "'input[0].content' is required"],
  ['content an object', message({ text: 'hi' }), "'input[0].content' must be of type string or array"],
  ['part type unknown', part({ type: 'input_audio', audio_url: 'x' }), "'input[0].content[0].type' must be one of: input_text, input_image, input_video, input_file"],
  ['part type missing', part({ text: 'hi' }), "'input[0].content[0].type' is required"],
  ['input_text without text', part({ type: 'input_text' }), "'input[0].content[0].text' is required"],
  ['input_image without image_url', part({ type: 'input_image' }), "'input[0].content[0].image_url' is required"],
  ['input_image with an object image_url', part({ type: 'input_image', image_url: { url: 'x' } }), "'input[0].content[0].image_url' must be of type string"],
  ['input_video without video_url', part({ type: 'input_video', fps: 1 }), "'input[0].content[0].video_url' is required"],
  ['input_video fps not a number', part({ type: 'input_video', video_url: 'https://example.com/v.mp4', fps: 'fast' }), "'input[0].content[0].fps' must be of type number"],
  ['input_file without file_url', part({ type: 'input_file' }), "'input[0].content[0].file_url' is required"],
  ['reasoning not an object', { reasoning: 'high' }, "'reasoning' must be of type object"],
  ['reasoning.effort unknown', { reasoning: { effort: 'extreme' } }, "'reasoning.effort' must be one of: none, minimal, low, medium, high, xhigh, max"],
  ['reasoning.summary unknown', { reasoning: { summary: 'long' } }, "'reasoning.summary' must be one of: auto, concise, detailed"],
  ['stream not a boolean', { stream: 'yes' }, "'stream' must be of type boolean"],
  ['instructions not a string', { instructions: ['be brief'] }, "'instructions' must be of type string"],
];

describe('POST /v1/responses validation table (spec §3 bounds and enums)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each(ACCEPTED)('accepts %s', async (_name, patch) => {
    const response = await call(gateway, 'POST', '/v1/responses', { ...valid, ...patch });
    expect(response.status, response.text).toBe(200);
    expect(response.json.object).toBe('response');
  });

  it.each(REJECTED)('rejects %s', async (_name, patch, message) => {
    const response = await call(gateway, 'POST', '/v1/responses', { ...valid, ...patch });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: { message: expect.stringContaining(message), type: 'invalid_request_error', code: 'invalid_parameter' } });
  });

  it('rejects a body that is not an object, and a missing key with 401, in the general envelope', async () => {
    const array = await call(gateway, 'POST', '/v1/responses', '[1]');
    expect(array.status).toBe(400);
    expect(array.json.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', code: 'invalid_parameter' });
    const anonymous = await call(gateway, 'POST', '/v1/responses', valid, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual({ error: { message: expect.any(String), type: 'authentication_error', code: 'invalid_api_key' } });
  });
});
