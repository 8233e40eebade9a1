import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSseText } from '../../../src/sse/parse.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/** The documented order (openai.md §2) with runs of deltas collapsed to one entry. */
const REASONING_THEN_MESSAGE = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_text.delta',
  'response.reasoning_summary_text.done',
  'response.reasoning_summary_part.done',
  'response.output_item.done',
  'response.output_item.added',
  'response.content_part.added',
  'response.output_text.delta',
  'response.output_text.done',
  'response.content_part.done',
  'response.output_item.done',
];

interface StreamedEvent {
  event: string | undefined;
  data: { type: string; sequence_number: number; response?: { status: string; model: string; error?: unknown; output: unknown[] } };
}

async function stream(gateway: TestGateway, body: Record<string, unknown>): Promise<{ status: number; contentType: string | null; text: string; events: StreamedEvent[] }> {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await response.text();
  const events = (await parseSseText(text)).map((e) => ({ event: e.event, data: JSON.parse(e.data) as StreamedEvent['data'] }));
  return { status: response.status, contentType: response.headers.get('content-type'), text, events };
}

const collapse = (types: string[]): string[] => types.filter((type, i) => !(type.endsWith('.delta') && types[i - 1] === type));

describe('POST /v1/responses streaming: SSE framing and terminal events (responses family)', () => {
  let gateway: TestGateway;
  const sims = () => [gateway.deps.simulators.get('simulator-volcengine-ark')!, gateway.deps.simulators.get('simulator-zhipu')!];
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterEach(() => sims().forEach((sim) => sim.setOptions({})));
  afterAll(() => gateway.stop());

  describe.each([
    { name: 'Ark pass-through', model: 'beta-seed-2.0-pro' },
    { name: 'Zhipu translated', model: 'epsilon-4.7' },
  ])('$name', ({ model }) => {
    it('event lines name the payload type, sequence numbers strictly increase, the order is exact, no [DONE]', async () => {
      const { status, contentType, text, events } = await stream(gateway, { model, input: 'Frame this stream' });
      expect(status).toBe(200);
      expect(contentType).toMatch(/^text\/event-stream/);
      expect(text).not.toContain('[DONE]');
      // Every frame is exactly `event: <type>` then `data: <json>`.
      for (const frame of text.trim().split('\n\n')) expect(frame).toMatch(/^event: [a-z_.]+\ndata: \{.*\}$/);
      for (const { event, data } of events) expect(event).toBe(data.type);
      const sequence = events.map((e) => e.data.sequence_number);
      sequence.forEach((n, i) => i > 0 && expect(n).toBeGreaterThan(sequence[i - 1]!));
      expect(collapse(events.map((e) => e.data.type))).toEqual([...REASONING_THEN_MESSAGE, 'response.completed']);
      const created = events[0]!.data.response!;
      expect(created).toMatchObject({ status: 'in_progress', model, output: [] });
      const completed = events.at(-1)!.data.response!;
      expect(completed).toMatchObject({ status: 'completed', model });
      expect(completed.output).toHaveLength(2);
    });

    it('max_output_tokens ends the stream with response.incomplete', async () => {
      const { events } = await stream(gateway, { model, input: 'Cut me short', max_output_tokens: 2 });
      const last = events.at(-1)!.data;
      expect(last.type).toBe('response.incomplete');
      expect(last.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
      expect(events.some((e) => e.data.type === 'response.completed')).toBe(false);
    });

    it('a stream cut mid-way ends with response.failed, never response.completed', async () => {
      // A small pace lets the frames before the cut reach the gateway before the socket drops.
      sims().forEach((sim) => sim.setOptions({ cut_stream_after: 6, tokens_per_second: 2000 }));
      const { status, text, events } = await stream(gateway, { model, input: 'This stream will break' });
      expect(status).toBe(200);
      expect(events.length).toBeGreaterThan(2);
      const types = events.map((e) => e.data.type);
      expect(types).not.toContain('response.completed');
      expect(text).not.toContain('[DONE]');
      const last = events.at(-1)!;
      expect(last.event).toBe('response.failed');
      expect(last.data.response).toMatchObject({
        id: (events[0]!.data.response as unknown as { id: string }).id,
        status: 'failed',
        model,
        error: { code: 'upstream_error', message: expect.any(String) },
      });
      expect(last.data.sequence_number).toBe(events.at(-2)!.data.sequence_number + 1);
    });
  });

  it('a thinking-off Ark stream has only the message item', async () => {
    const { events } = await stream(gateway, { model: 'beta-seed-2.0-pro', input: 'hi', thinking: { type: 'disabled' } });
    const types = collapse(events.map((e) => e.data.type));
    expect(types).toEqual(['response.created', 'response.in_progress', ...REASONING_THEN_MESSAGE.slice(8), 'response.completed']);
  });

  it('an upstream failure before the first byte is an ordinary error response', async () => {
    sims().forEach((sim) => sim.setOptions({ fault_status: 503, fault_times: 1 }));
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'epsilon-4.7', input: 'hi', stream: true }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: { message: expect.any(String), type: 'api_error', code: 'upstream_unavailable' } });
  });
});
