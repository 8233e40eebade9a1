import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSseText } from '../../src/sse/parse.js';
import { anthropicSimulator } from '../../src/providers/anthropic/simulator.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';

const HEADERS = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
const BODY = { model: 'claude-sonnet-4-5-20250929', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello simulator' }] };

/** The fake Anthropic upstream speaks the documented protocol (shared/protocols/anthropic.md). */
describe('Anthropic simulator', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator(anthropicSimulator);
  });
  afterAll(() => sim.close());

  const post = async (body: unknown, headers: Record<string, string> = HEADERS) => {
    const res = await fetch(`${sim.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  it('requires x-api-key (401 authentication_error) and anthropic-version (400)', async () => {
    const noKey = await post(BODY, { 'anthropic-version': '2023-06-01' });
    expect(noKey.status).toBe(401);
    expect(JSON.parse(noKey.text)).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.any(String) }, request_id: expect.stringMatching(/^req_/) });
    const noVersion = await post(BODY, { 'x-api-key': 'k' });
    expect(noVersion.status).toBe(400);
    expect(JSON.parse(noVersion.text).error.type).toBe('invalid_request_error');
  });

  it.each([
    [{ ...BODY, max_tokens: undefined }, 400, 'max_tokens: Field required'],
    [{ ...BODY, max_tokens: 40_000, model: 'claude-opus-4-20250514' }, 400, 'max_tokens: 40000 > 32000'],
    [{ ...BODY, messages: [] }, 400, 'messages'],
    [{ ...BODY, messages: [{ role: 'tool', content: 'x' }] }, 400, "messages.0.role: Input should be 'user', 'assistant' or 'system'"],
    [{ ...BODY, temperature: 1.5 }, 400, 'temperature: range: 0..1'],
    [{ ...BODY, frequency_penalty: 0 }, 400, 'frequency_penalty: Extra inputs are not permitted'],
    [{ ...BODY, model: 'gpt-4.1' }, 404, 'model: gpt-4.1'],
    [
      { ...BODY, system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: ['a', 'b', 'c', 'd'].map((text) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } })) }] },
      400,
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    ],
    [{ ...BODY, messages: [{ role: 'user', content: [{ type: 'text', text: '', cache_control: { type: 'ephemeral' } }] }] }, 400, 'cache_control cannot be set for empty text blocks'],
  ])('rejects %j with %i', async (body, status, message) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.text).error.message).toContain(message);
  });

  it('answers a Message with real token counts and a request-id header', async () => {
    const res = await post(BODY);
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const message = JSON.parse(res.text);
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: BODY.model, stop_reason: 'end_turn', stop_sequence: null });
    expect(message.content[0].text).toContain('Hello simulator');
    expect(message.usage.input_tokens).toBeGreaterThan(3);
    expect(message.usage.output_tokens).toBeGreaterThan(10);
  });

  it('honours stop_sequences (stop_sequence + the matched sequence) and max_tokens', async () => {
    const stopped = JSON.parse((await post({ ...BODY, stop_sequences: ['nothing-like-this', 'simulated'] })).text);
    expect(stopped).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'simulated', content: [{ type: 'text', text: 'This is a ' }] });
    const cut = JSON.parse((await post({ ...BODY, max_tokens: 2 })).text);
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', usage: { output_tokens: 2 } });
  });

  it('streams the documented event order with a ping, thinking first when enabled', async () => {
    const res = await post({ ...BODY, max_tokens: 4096, stream: true, thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await parseSseText(res.text);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('message_start');
    expect(names.slice(1, 3)).toEqual(['content_block_start', 'ping']);
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(names.filter((n) => n === 'content_block_start')).toHaveLength(2);
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data).delta.type);
    expect(deltas).toContain('thinking_delta');
    expect(deltas).toContain('signature_delta');
    expect(deltas).toContain('text_delta');
    const start = JSON.parse(events[0]!.data).message;
    const delta = JSON.parse(events.at(-2)!.data);
    expect(start.stop_reason).toBeNull();
    expect(delta.delta.stop_reason).toBe('end_turn');
    expect(delta.usage.output_tokens).toBeGreaterThan(start.usage.output_tokens);
  });

  it('renders a 529 fault as overloaded_error', async () => {
    sim.setOptions({ fault_status: 529, fault_times: 1 });
    const res = await post(BODY);
    expect(res.status).toBe(529);
    expect(JSON.parse(res.text).error.type).toBe('overloaded_error');
    sim.setOptions({});
  });
});
