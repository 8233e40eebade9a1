import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/gateway/channel.js';
import { StickyLoad } from '../../src/gateway/sticky-load.js';
import { conversationOf, stickyOrder } from '../../src/gateway/sticky-route.js';
import { chatCompletionsFacts } from '../../src/api/chat-completions/facts.js';
import { responsesFacts } from '../../src/api/responses/facts.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/** A support bot's prompt: the same 3,000 characters before every question. */
const SYSTEM = 'You are the support assistant of Example Corp. Answer briefly and politely. '.repeat(40).slice(0, 3000);

describe('sticky routing that still balances (issue 33)', () => {
  const chat = (body: object) => chatCompletionsFacts(body as never).conversation;

  it('names only conversations with history, by the system text and the first user turn', () => {
    const first = (question: string) => chat({ messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: question }] });
    const later = (question: string) => chat({ messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: question }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'more' }] });
    expect(conversationOf({}, first('How do I reset my password?'), 'k')).toBeUndefined();
    const a = conversationOf({}, later('How do I reset my password?'), 'k');
    const b = conversationOf({}, later('Where is my parcel?'), 'k');
    expect(a).toBeDefined();
    expect(a).not.toBe(b);
    // A tool result is history too; so is a stored response a Responses request follows.
    expect(conversationOf({}, responsesFacts({ input: [{ role: 'user', content: 'q' }, { type: 'function_call_output', call_id: 'c', output: 'x' }] }).conversation, 'k')).toBeDefined();
    expect(conversationOf({}, responsesFacts({ input: 'q', previous_response_id: 'resp_1' }).conversation, 'k')).toBeDefined();
    // Named sessions keep pinning from the first turn.
    expect(conversationOf({ 'session-id': 's' }, first('q'), 'k')).toBe('h:s');
  });

  it('spills new conversations off a channel over its weighted share, keeps placed ones', () => {
    let now = 0;
    const load = new StickyLoad(() => now);
    const offerings = [{ channel: { name: 'a', weight: 1, priority: 0 } as Channel, offer: 'a' }, { channel: { name: 'b', weight: 1, priority: 0 } as Channel, offer: 'b' }];
    // One conversation, all on its channel: a hot prefix.
    const hot = stickyOrder(offerings, 'hot', load)[0]!.offer;
    for (let i = 0; i < 20; i++) {
      expect(stickyOrder(offerings, 'hot', load)[0]!.offer).toBe(hot);
      load.note(hot);
    }
    const fresh = Array.from({ length: 10 }, (_, i) => stickyOrder(offerings, `new-${i}`, load)[0]!.offer);
    expect(fresh.every((name) => name !== hot)).toBe(true);
    expect(stickyOrder(offerings, 'hot', load)[0]!.offer).toBe(hot);
    // An hour on, the traffic has decayed: conversations hash by weight again.
    now += 3_600_000;
    const spread = Array.from({ length: 40 }, (_, i) => stickyOrder(offerings, `later-${i}`, load)[0]!.offer);
    expect(spread.filter((name) => name === hot).length).toBeGreaterThan(5);
  });
});

describe('weighted channels under one long system prompt, through the gateway (issue 33)', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: {
        channels: [
          { name: 'heavy', vendor: 'openai', api_key: 'k', models: { 'delta-4.1': 'gpt-4.1' }, weight: 3, max_retries: 0 },
          { name: 'light', vendor: 'openai', api_key: 'k', models: { 'delta-4.1': 'gpt-4.1' }, weight: 1, max_retries: 0 },
        ],
      },
    });
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());
  // The simulators keep only their latest requests: each request is read off and cleared.
  const tally = { heavy: 0, light: 0 };
  const servedBy = (): 'heavy' | 'light' => {
    const heavy = gateway.deps.simulators.get('heavy')!.requests;
    const light = gateway.deps.simulators.get('light')!.requests;
    expect(heavy.length + light.length).toBe(1);
    const name = heavy.length === 1 ? 'heavy' : 'light';
    heavy.length = 0;
    light.length = 0;
    tally[name]++;
    return name;
  };
  const share = () => {
    const heavy = tally.heavy / (tally.heavy + tally.light);
    tally.heavy = tally.light = 0;
    return heavy;
  };

  it('spreads 200 single-turn requests with a shared 3,000-character system prompt by weight', async () => {
    for (let i = 0; i < 200; i++) {
      await client.chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: `Question number ${i}: what about order ${i * 7}?` }] });
      servedBy();
    }
    const heavy = share();
    expect(heavy).toBeGreaterThanOrEqual(0.65);
    expect(heavy).toBeLessThanOrEqual(0.85);
  });

  it('spreads 200 two-turn conversations by weight, and keeps a multi-turn conversation on one channel', async () => {
    for (let i = 0; i < 200; i++) {
      await client.chat.completions.create({
        model: 'delta-4.1',
        messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: `Ticket ${i}: my invoice is wrong` }, { role: 'assistant', content: 'Which invoice?' }, { role: 'user', content: `Number ${i}` }],
      });
      servedBy();
    }
    const heavy = share();
    expect(heavy).toBeGreaterThanOrEqual(0.65);
    expect(heavy).toBeLessThanOrEqual(0.85);

    // An agent's loop without a session header: every turn after the first carries history.
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Refactor the billing module' }];
    const homes = new Set<string>();
    for (let turn = 0; turn < 8; turn++) {
      const answer = await client.chat.completions.create({ model: 'delta-4.1', messages });
      const home = servedBy();
      if (turn > 0) homes.add(home);
      messages.push({ role: 'assistant', content: answer.choices[0]!.message.content ?? '' }, { role: 'user', content: `step ${turn}` });
    }
    expect(homes.size).toBe(1);
  });
});
