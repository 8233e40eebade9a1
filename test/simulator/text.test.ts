import { describe, expect, it } from 'vitest';
import { countTokens, simulateText } from '../../src/simulator/text.js';

const input = { model: 'gpt-4.1', prompt: 'Say hello in one short sentence.', maxTokens: 16 };

describe('simulated text (memoised)', () => {
  it('is deterministic: the same input gives the same reply and token counts', () => {
    const first = simulateText(input);
    const again = simulateText({ ...input });
    expect(again).toEqual(first);
    expect(first.contentTokens).toBeLessThanOrEqual(16);
    expect(countTokens(first.content)).toBe(countTokens(first.content));
  });

  it('hands each caller its own reply: replacing content (JSON mode) does not leak into the next one', () => {
    const first = simulateText(input);
    const original = first.content;
    first.content = JSON.stringify({ reply: first.content });
    expect(simulateText(input).content).toBe(original);
  });

  it('remembers short prompts but not long ones, which would pin their size in memory', () => {
    expect(simulateText(input).contentPieces).toBe(simulateText(input).contentPieces);
    const long = { ...input, prompt: 'word '.repeat(1000) };
    const a = simulateText(long);
    const b = simulateText(long);
    expect(b).toEqual(a);
    expect(b.contentPieces).not.toBe(a.contentPieces);
  });
});
