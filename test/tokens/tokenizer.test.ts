import { describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer';
import { randomBytes } from 'node:crypto';
import { countingPlan, countTokens, encodeTokens, EXACT_COUNT_MAX_CHARS, PIECE_MAX_CHARS, WORD_MAX_CHARS } from '../../src/tokens/tokenizer.js';
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

  it('stays within one token per cut on long text with spaces', () => {
    const words = Array.from({ length: 2500 }, (_, i) => `w${(i * 7919) % 1000}x`).join(' ');
    expect(words.length).toBeLessThan(EXACT_COUNT_MAX_CHARS);
    expect(Math.abs(countTokens(words) - encode(words).length)).toBeLessThanOrEqual(Math.ceil(words.length / PIECE_MAX_CHARS));
  });

  it('answers at once for 1 MB of one letter and of CJK without punctuation (the quadratic case)', () => {
    // Before: 200 KB of "a" blocked the event loop 25 s, and 1 MB never returned.
    const letters = 'a'.repeat(1 << 20);
    const cjk = '中文字符'.repeat(1 << 18);
    expect(timed(() => expect(countTokens(letters)).toBe(approximateTokens(letters)))).toBeLessThan(1000);
    expect(timed(() => expect(countTokens(cjk)).toBe(approximateTokens(cjk)))).toBeLessThan(1000);
    // Just under the exact limit, unbroken: estimated by its length since issue 44.
    const worst = '中'.repeat(EXACT_COUNT_MAX_CHARS);
    expect(timed(() => expect(countTokens(worst)).toBe(approximateTokens(worst)))).toBeLessThan(1000);
  });

  it('keeps the usage of a cut stream bounded too (client gone after a huge prompt)', () => {
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'b'.repeat(1 << 20) }] };
    let usage: ReturnType<typeof partialStreamUsage> | undefined;
    expect(timed(() => { usage = partialStreamUsage(chatCompletionsFacts(body as never), ['x'.repeat(200_000)]); })).toBeLessThan(1000);
    expect(usage!.promptTokens).toBe(approximateTokens('b'.repeat(1 << 20)));
    expect(usage!.completionTokens).toBeGreaterThan(0);
  });
});

describe('token counts are bounded per word (issue 44, item 7)', () => {
  const base64 = (chars: number) => randomBytes(chars).toString('base64').slice(0, chars);

  it('counts a run without white space longer than a word by its length, never with the tokenizer', () => {
    // 16 K of base64 took the tokenizer 50-90 ms (~4 µs a character); a 300 KB body of such texts, seconds.
    for (const run of [base64(EXACT_COUNT_MAX_CHARS), 'a'.repeat(4000), '中文字符测试'.repeat(500), '😀'.repeat(1000), base64(WORD_MAX_CHARS + 1)]) {
      expect(countingPlan(run)).toEqual({ exact: [], estimated: [run] });
      expect(countTokens(run)).toBe(approximateTokens(run));
    }
  });

  it('keeps words exact and estimates only the long run between them', () => {
    const run = base64(5000);
    const text = `Please decode this attachment: ${run} and tell me what it says.`;
    const plan = countingPlan(text);
    expect(plan.estimated).toEqual([run]);
    expect(plan.exact.join('')).toBe(text.replace(run, ''));
    expect(countTokens(text)).toBe(encode('Please decode this attachment: ').length + approximateTokens(run) + encode(' and tell me what it says.').length);
    // A run of exactly a word's length is still a word.
    const word = base64(WORD_MAX_CHARS);
    expect(countingPlan(`a ${word} b`).estimated).toEqual([]);
    expect(countTokens(`a ${word} b`)).toBe(encode(`a ${word} b`).length);
  });

  it('hands the tokenizer no piece longer than its cap and no run longer than a word, whatever the text', () => {
    const texts = [
      base64(EXACT_COUNT_MAX_CHARS).replace(/(.{60})./g, '$1 '), // base64 with a space every 61 characters
      `${'x'.repeat(WORD_MAX_CHARS)}\n`.repeat(200),
      'word '.repeat(3000),
      `${'a'.repeat(200)} ${'b '.repeat(100)}${'中'.repeat(70)}`,
    ];
    for (const text of texts) {
      const plan = countingPlan(text);
      expect(plan.exact.join('').length + plan.estimated.join('').length).toBe(text.length);
      for (const piece of plan.exact) {
        expect(piece.length).toBeLessThanOrEqual(PIECE_MAX_CHARS);
        expect(piece).not.toMatch(new RegExp(`\\S{${WORD_MAX_CHARS + 1}}`));
      }
    }
  });

  it('counts a 300 KB unbroken prompt within the documented bound, as one text or in 16 K messages', () => {
    const prompt = base64(300 * 1024);
    expect(countTokens(prompt)).toBe(approximateTokens(prompt));
    const messages = prompt.match(new RegExp(`.{1,${EXACT_COUNT_MAX_CHARS}}`, 'gs'))!;
    expect(messages.length).toBeGreaterThan(18);
    const sum = messages.reduce((total, message) => total + countTokens(message), 0);
    // Four characters a token, rounded up once per message.
    expect(sum).toBeGreaterThanOrEqual(Math.ceil(prompt.length / 4));
    expect(sum).toBeLessThanOrEqual(Math.ceil(prompt.length / 4) + messages.length);
    // o200k reads base64 at about 1.5 characters a token: the estimate errs low there, by design of the linear estimate.
  });

  it("counts the tokenizer's special tokens in client text as text instead of throwing", () => {
    const text = 'ignore <|endoftext|> and <|im_start|>system';
    expect(countTokens(text)).toBeGreaterThan(5);
    expect(encodeTokens(text).length).toBe(countTokens(text));
    expect(() => encode(text)).toThrow(); // the library's default, which failed the request before
  });
});
