import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/gateway/channel.js';
import { conversationOf, stickyOrder } from '../../src/gateway/sticky-route.js';
import { chatCompletionsFacts } from '../../src/api/chat-completions/facts.js';
import { anthropicMessagesFacts } from '../../src/api/messages/facts.js';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const channel = (name: string, weight = 1, priority = 0) => ({ channel: { name, weight, priority } as Channel, offer: name });

describe('sticky routing: which conversation a request belongs to (issue 20)', () => {
  // The body's part comes from the family's facts (issue 28): chat names caches, Anthropic's bodies their system text.
  const chat = (body: object) => chatCompletionsFacts(body as never).conversation;
  const anthropic = (body: object) => anthropicMessagesFacts(body as never).conversation;
  it('reads a session header first, then prompt_cache_key, then metadata.user_id, then the prompt start', () => {
    const body = { prompt_cache_key: 'pk', metadata: { user_id: 'u' }, messages: [{ role: 'user', content: 'hi' }] };
    expect(conversationOf({ 'x-claude-code-session-id': 'cc' }, chat(body), 'key_1')).toBe('h:cc');
    expect(conversationOf({ 'session-id': 'codex' }, chat(body), 'key_1')).toBe('h:codex');
    expect(conversationOf({}, chat(body), 'key_1')).toBe('c:key_1:pk');
    expect(conversationOf({}, chat({ ...body, prompt_cache_key: undefined }), 'key_1')).toBe('u:key_1:u');
    const a = conversationOf({}, anthropic({ system: 'S', messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'x' }] }), 'key_1');
    const b = conversationOf({}, anthropic({ system: 'S', messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'y' }, { role: 'user', content: 'z' }] }), 'key_1');
    expect(a).toBe(b);
    expect(conversationOf({}, anthropic({ system: 'S', messages: [{ role: 'user', content: 'other' }] }), 'key_1')).not.toBe(a);
    expect(conversationOf({}, anthropic({ system: 'S', messages: [{ role: 'user', content: 'first' }] }), 'key_2')).not.toBe(a);
  });

  it('orders a priority group by the conversation, keeps priorities, and shares conversations out by weight', () => {
    const offerings = [channel('a', 3), channel('b', 1), channel('backup', 1, 1)];
    const first = stickyOrder(offerings, 'conversation-1').map((o) => o.offer);
    expect(stickyOrder([...offerings].reverse(), 'conversation-1').map((o) => o.offer)).toEqual(first);
    expect(first.at(-1)).toBe('backup');
    const wins = { a: 0, b: 0 };
    for (let i = 0; i < 4000; i++) wins[stickyOrder(offerings, `conversation-${i}`)[0]!.offer as 'a' | 'b']++;
    expect(wins.a / 4000).toBeGreaterThan(0.7);
    expect(wins.a / 4000).toBeLessThan(0.8);
  });

  it('moves only the conversations of a channel that drops out', () => {
    const all = [channel('a'), channel('b'), channel('c')];
    let moved = 0;
    for (let i = 0; i < 600; i++) {
      const before = stickyOrder(all, `c${i}`)[0]!.offer;
      const after = stickyOrder(all.filter((o) => o.offer !== 'c'), `c${i}`)[0]!.offer;
      if (before !== after) {
        expect(before).toBe('c');
        moved++;
      }
    }
    expect(moved).toBeGreaterThan(150);
  });
});

describe('sticky routing through the gateway (issue 20)', () => {
  let gateway: TestGateway;
  const names = ['acct-1', 'acct-2', 'acct-3'];
  beforeAll(async () => {
    gateway = await startTestGateway({
      file: {
        routing: { circuit_threshold: 1, circuit_cool_down_ms: 60_000 },
        channels: names.map((name) => ({ name, vendor: 'openai', api_key: 'k', models: { 'delta-4.1': 'gpt-4.1' }, max_retries: 0 })),
      },
    });
  });
  afterAll(() => gateway.stop());
  const served = () => Object.fromEntries(names.map((name) => [name, gateway.deps.simulators.get(name)!.requests.length]));
  const ask = (session: string) => call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, { authorization: 'Bearer sk-gw-test-key-0123456789abcdef', 'x-claude-code-session-id': session });

  it('keeps a conversation on one channel, spreads conversations, and releases a failing channel', async () => {
    const before = served();
    for (let turn = 0; turn < 8; turn++) expect((await ask('session-a')).status).toBe(200);
    const after = served();
    const used = names.filter((name) => after[name]! > before[name]!);
    expect(used).toHaveLength(1);
    expect(after[used[0]!]! - before[used[0]!]!).toBe(8);

    for (let i = 0; i < 30; i++) expect((await ask(`session-${i}`)).status).toBe(200);
    expect(names.every((name) => served()[name]! > after[name]!)).toBe(true);

    const home = used[0]!;
    gateway.deps.simulators.get(home)!.setOptions({ fault_status: 500 });
    try {
      const failing = served();
      expect((await ask('session-a')).status).toBe(200);
      const next = served();
      expect(next[home]! - failing[home]!).toBe(1);
      const moved = names.find((name) => name !== home && next[name]! > failing[name]!)!;
      // The circuit is open now: the conversation goes straight to its next channel.
      for (let turn = 0; turn < 3; turn++) expect((await ask('session-a')).status).toBe(200);
      expect(served()[home]).toBe(next[home]);
      expect(served()[moved]! - next[moved]!).toBe(3);
    } finally {
      gateway.deps.simulators.get(home)!.setOptions({});
    }
  });
});
