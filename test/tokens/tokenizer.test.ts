import { describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer';
import { countTokens, EXACT_COUNT_MAX_CHARS } from '../../src/tokens/tokenizer.js';
import { approximateTokens } from '../../src/tokens/approximate.js';
import { partialStreamUsage } from '../../src/usage/partial-usage.js';
import { chatCompletionsFacts } from '../../src/api/chat-completions/facts.js';

/** Wall time of `run`, for generous bounds only: the quadratic cases took seconds to minutes. */
const timed = (run: () => void): number => {
  const start = performance.now();
  run();
  return performance.now() - start;
};

describe('countTokens is linear and bounded (issue 13, item 1)', () => {
  it('counts ordinary text exactly as o200k does', () => {
    const prose = 'The gateway routes each model to its channels, retries, falls back, and records usage. '.repeat(150);
    expect(prose.length).toBeLessThan(EXACT_COUNT_MAX_CHARS);
    expect(countTokens(prose)).toBe(encode(prose).length);
    expect(countTokens('')).toBe(0);
    expect(countTokens('😀 smile')).toBe(encode('😀 smile').length);
  });

  it('stays within one token per cut on text without spaces', () => {
    for (const text of ['a'.repeat(4000), '中文字符测试'.repeat(500), '😀'.repeat(1000)]) {
      const exact = encode(text).length;
      expect(Math.abs(countTokens(text) - exact)).toBeLessThanOrEqual(Math.ceil(text.length / 100));
    }
  });

  it('answers at once for 1 MB of one letter and of CJK without punctuation (the quadratic case)', () => {
    // Before: 200 KB of "a" blocked the event loop 25 s, and 1 MB never returned.
    const letters = 'a'.repeat(1 << 20);
    const cjk = '中文字符'.repeat(1 << 18);
    expect(timed(() => expect(countTokens(letters)).toBe(approximateTokens(letters)))).toBeLessThan(1000);
    expect(timed(() => expect(countTokens(cjk)).toBe(approximateTokens(cjk)))).toBeLessThan(1000);
    // Just under the exact limit, unbroken: the costliest text still counted exactly.
    const worst = '中'.repeat(EXACT_COUNT_MAX_CHARS);
    expect(timed(() => countTokens(worst))).toBeLessThan(1000);
  });

  it('keeps the usage of a cut stream bounded too (client gone after a huge prompt)', () => {
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'b'.repeat(1 << 20) }] };
    let usage: ReturnType<typeof partialStreamUsage> | undefined;
    expect(timed(() => { usage = partialStreamUsage(chatCompletionsFacts(body as never), ['x'.repeat(200_000)]); })).toBeLessThan(1000);
    expect(usage!.promptTokens).toBe(approximateTokens('b'.repeat(1 << 20)));
    expect(usage!.completionTokens).toBeGreaterThan(0);
  });
});
