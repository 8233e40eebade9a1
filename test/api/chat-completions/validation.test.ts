import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

/** Every rule of spec §1 and "Limits" for chat: at the bound it passes, just past it a 400 naming the field. */
const A = 'delta-4.1';
const B = 'beta-seed-2.0-pro';
const C = 'beta-seed-1-6-lite-251015';
const user = (content: unknown = 'hello') => [{ role: 'user', content }];

type Case = [label: string, body: Record<string, unknown>, status: 200 | 400, field?: string];

const cases: Case[] = [
  ['A max_tokens 1', { model: A, messages: user(), max_tokens: 1 }, 200],
  ['A max_tokens 0', { model: A, messages: user(), max_tokens: 0 }, 400, 'max_tokens'],
  ['A max_tokens 1.5', { model: A, messages: user(), max_tokens: 1.5 }, 400, 'max_tokens'],
  ['A temperature 0', { model: A, messages: user(), temperature: 0 }, 200],
  ['A temperature 2', { model: A, messages: user(), temperature: 2 }, 200],
  ['A temperature -0.01', { model: A, messages: user(), temperature: -0.01 }, 400, 'temperature'],
  ['A temperature 2.01', { model: A, messages: user(), temperature: 2.01 }, 400, 'temperature'],
  ['A temperature "1"', { model: A, messages: user(), temperature: '1' }, 400, 'temperature'],
  ['A top_p 0', { model: A, messages: user(), top_p: 0 }, 200],
  ['A top_p 1', { model: A, messages: user(), top_p: 1 }, 200],
  ['A top_p -0.1', { model: A, messages: user(), top_p: -0.1 }, 400, 'top_p'],
  ['A top_p 1.1', { model: A, messages: user(), top_p: 1.1 }, 400, 'top_p'],
  ['A frequency_penalty -2', { model: A, messages: user(), frequency_penalty: -2 }, 200],
  ['A frequency_penalty 2', { model: A, messages: user(), frequency_penalty: 2 }, 200],
  ['A frequency_penalty -2.1', { model: A, messages: user(), frequency_penalty: -2.1 }, 400, 'frequency_penalty'],
  ['A presence_penalty 2.1', { model: A, messages: user(), presence_penalty: 2.1 }, 400, 'presence_penalty'],
  ['A presence_penalty -2', { model: A, messages: user(), presence_penalty: -2 }, 200],
  ['A n 1', { model: A, messages: user(), n: 1 }, 200],
  ['A n 0', { model: A, messages: user(), n: 0 }, 400, 'n'],
  ['A messages empty', { model: A, messages: [] }, 400, 'messages'],
  ['A messages missing', { model: A }, 400, 'messages'],
  ['A message without role', { model: A, messages: [{ content: 'x' }] }, 400, 'messages[0].role'],
  ['A unknown role', { model: A, messages: [{ role: 'robot', content: 'x' }] }, 400, 'messages[0].role'],
  ['A content parts (family A is string only)', { model: A, messages: user([{ type: 'text', text: 'x' }]) }, 400, 'messages[0].content'],
  ['A function tool', { model: A, messages: user(), tools: [{ type: 'function', function: { name: 'lookup' } }] }, 200],
  ['A non-function tool', { model: A, messages: user(), tools: [{ type: 'code_interpreter' }] }, 400, 'tools[0].type'],
  ['A tool_choice auto', { model: A, messages: user(), tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'auto' }, 200],
  ['A tool_choice unknown', { model: A, messages: user(), tool_choice: 'sometimes' }, 400, 'tool_choice'],
  ['A response_format json_object', { model: A, messages: user(), response_format: { type: 'json_object' } }, 200],
  ['A response_format xml', { model: A, messages: user(), response_format: { type: 'xml' } }, 400, 'response_format.type'],
  ['A user string', { model: A, messages: user(), user: 'end-user-1' }, 200],
  ['A user number', { model: A, messages: user(), user: 5 }, 400, 'user'],
  ['A stream not boolean', { model: A, messages: user(), stream: 'yes' }, 400, 'stream'],
  ['A five stop sequences', { model: A, messages: user(), stop: ['a', 'b', 'c', 'd', 'e'] }, 200],
  ['A stop number', { model: A, messages: user(), stop: 5 }, 400, 'stop'],
  ['A unknown field passes', { model: A, messages: user(), seed: 7, logit_bias: {} }, 200],
  ['model missing', { messages: user() }, 400, 'model'],
  ['model of another endpoint', { model: 'alpha-opus-4-20250514', messages: user() }, 400, 'model'],
  ['model unknown', { model: 'gpt-4', messages: user() }, 400, 'model'],
  ['B text part', { model: B, messages: user([{ type: 'text', text: 'x' }]) }, 200],
  ['B image_url part', { model: B, messages: user([{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }]) }, 200],
  ['B video_url part with fps', { model: B, messages: user([{ type: 'video_url', video_url: { url: 'https://example.com/a.mp4', fps: 1 } }]) }, 200],
  ['B video_url fps string', { model: B, messages: user([{ type: 'video_url', video_url: { url: 'https://x/a.mp4', fps: '1' } }]) }, 400, 'messages[0].content[0].video_url.fps'],
  ['B unknown part type', { model: B, messages: user([{ type: 'audio', audio: {} }]) }, 400, 'messages[0].content[0].type'],
  ['B image_url without url', { model: B, messages: user([{ type: 'image_url', image_url: {} }]) }, 400, 'messages[0].content[0].image_url.url'],
  ['B text part without text', { model: B, messages: user([{ type: 'text' }]) }, 400, 'messages[0].content[0].text'],
  ['B 4 stop sequences', { model: B, messages: user(), stop: ['a', 'b', 'c', 'd'] }, 200],
  ['B 5 stop sequences', { model: B, messages: user(), stop: ['a', 'b', 'c', 'd', 'e'] }, 400, 'stop'],
  ['B large max_tokens', { model: B, messages: user(), max_tokens: 100_000 }, 200],
  ['B temperature 2.5', { model: B, messages: user(), temperature: 2.5 }, 400, 'temperature'],
  ['C max_tokens 8192', { model: C, messages: user(), max_tokens: 8192 }, 200],
  ['C max_tokens 8193', { model: C, messages: user(), max_tokens: 8193 }, 400, 'max_tokens'],
  ['C max_tokens 0', { model: C, messages: user(), max_tokens: 0 }, 400, 'max_tokens'],
  ['C penalties at bounds', { model: C, messages: user(), frequency_penalty: -2, presence_penalty: 2 }, 200],
  ['C frequency_penalty 2.5', { model: C, messages: user(), frequency_penalty: 2.5 }, 400, 'frequency_penalty'],
  ['C content parts (C is string only)', { model: C, messages: user([{ type: 'text', text: 'x' }]) }, 400, 'messages[0].content'],
  ['C 5 stop sequences (B rule also applies)', { model: C, messages: user(), stop: ['a', 'b', 'c', 'd', 'e'] }, 400, 'stop'],
];

describe('chat completions validation table (issue 2)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each(cases)('%s', async (_label, body, status, field) => {
    const response = await call(gateway, 'POST', '/v1/chat/completions', body);
    expect(response.status, response.text).toBe(status);
    if (status === 400) {
      expect(response.json).toEqual({ error: { code: 'invalid_parameter', message: expect.stringContaining(`'${field}'`) } });
    } else {
      expect(response.json.object).toBe('chat.completion');
    }
  });

  it('passes fields the spec does not list on to the upstream', async () => {
    await call(gateway, 'POST', '/v1/chat/completions', { model: A, messages: user(), seed: 42, metadata: { a: 'b' } });
    const sent = gateway.deps.simulators.get('simulator-openai')!.requests.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'gpt-4.1', seed: 42, metadata: { a: 'b' } });
  });
});
