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
  // What agents send (issue 20): their history as items, their tools and request fields.
  [
    'a Codex history: reasoning with encrypted_content, an assistant message, a call, its output (ids and statuses)',
    {
      input: [
        { type: 'message', id: 'msg_1', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 's' }], content: null, encrypted_content: null },
        { type: 'message', id: 'msg_2', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }, { type: 'refusal', refusal: 'no' }] },
        { type: 'function_call', id: 'fc_1', status: 'completed', call_id: 'c1', name: 'f', arguments: '{}', namespace: 'ns' },
        { type: 'function_call_output', id: 'fco_1', call_id: 'c1', output: [{ type: 'input_text', text: 'r' }], status: 'completed' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
        { role: 'user', content: 'next' },
      ],
    },
  ],
  [
    'tools: function, namespace, web_search (preview names too), custom, and a vendor tool passed on',
    {
      tools: [
        { type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: true },
        { type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'function', name: 'g' }] },
        { type: 'web_search', external_web_access: false },
        { type: 'web_search_preview_2025_03_11', search_context_size: 'low' },
        { type: 'custom', name: 'c', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
        { type: 'image_process' },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
    },
  ],
  [
    "Codex's and the Agents SDK's request fields",
    {
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
      client_metadata: { 'x-codex-turn-metadata': '{}' },
      safety_identifier: 'user-1',
      service_tier: 'auto',
      truncation: 'disabled',
      text: { verbosity: 'low' },
      metadata: { a: 'b' },
      instructions: 'Be brief.',
    },
  ],
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
  ['a reasoning item without its id (issue 20)', { input: [{ type: 'reasoning', summary: [] }] }, "'input[0].id' is required"],
  ['a reasoning item with encrypted_content not a string', { input: [{ type: 'reasoning', id: 'rs', summary: [], encrypted_content: 5 }] }, "'input[0].encrypted_content' must be of type string"],
  ['output_text in a user message', part({ type: 'output_text', text: 'x' }), "'input[0].content[0].type' must be one of: input_text, input_image, input_video, input_file"],
  ['a function_call without arguments', { input: [{ type: 'function_call', call_id: 'c', name: 'f' }] }, "'input[0].arguments' is required"],
  ['a namespace tool without tools', { tools: [{ type: 'namespace', name: 'ns', tools: [] }] }, "'tools[0].tools' must have at least 1 item(s)"],
  ['a function tool without a name', { tools: [{ type: 'function' }] }, "'tools[0].name' is required"],
  ['a tool without a type', { tools: [{ name: 'f' }] }, "'tools[0].type' is required"],
  ['web_search with an unknown context size', { tools: [{ type: 'web_search', search_context_size: 'huge' }] }, "'tools[0].search_context_size' must be one of: low, medium, high"],
  ['tool_choice unknown', { tool_choice: 'sometimes' }, "'tool_choice' must be one of: none, auto, required"],
  ['include not an array', { include: 'reasoning.encrypted_content' }, "'include' must be of type array"],
  ['store not a boolean', { store: 'no' }, "'store' must be of type boolean"],
  ['truncation unknown', { truncation: 'middle' }, "'truncation' must be one of: auto, disabled"],
  ['metadata value not a string', { metadata: { a: 1 } }, "'metadata.a' must be of type string"],
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
