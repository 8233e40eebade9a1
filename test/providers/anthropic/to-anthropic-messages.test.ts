import { describe, expect, it } from 'vitest';
import type { OpenAIChatMessage } from '../../../src/protocols/openai-chat/types.js';
import { toAnthropicMessages } from '../../../src/providers/anthropic/to-anthropic-messages.js';

describe('toAnthropicMessages', () => {
  it('merges consecutive same-role messages into one turn, keeping their order', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'one' },
      { role: 'user', content: [{ type: 'text', text: 'two' }] },
      { role: 'user', content: 'three' },
      { role: 'assistant', content: 'four' },
      { role: 'user', content: 'five' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }, { type: 'text', text: 'three' }] },
      { role: 'assistant', content: 'four' },
      { role: 'user', content: 'five' },
    ]);
  });

  it('does not change the request it was given', () => {
    const parts = [{ type: 'text' as const, text: 'a' }];
    const input: OpenAIChatMessage[] = [{ role: 'user', content: parts }, { role: 'user', content: 'b' }];
    toAnthropicMessages(input);
    expect(parts).toEqual([{ type: 'text', text: 'a' }]);
  });

  it('merges 400,000 user messages in linear time (issue 13, item 2)', () => {
    // Before: every merge copied the turn so far; 40,000 messages took 12 s and 400,000 never ended.
    const input: OpenAIChatMessage[] = Array.from({ length: 400_000 }, (_, i) => ({ role: 'user', content: `m${i}` }));
    const start = performance.now();
    const { messages } = toAnthropicMessages(input);
    expect(performance.now() - start).toBeLessThan(5000);
    expect(messages).toHaveLength(1);
    expect((messages[0]!.content as unknown[]).length).toBe(400_000);
  });
});
