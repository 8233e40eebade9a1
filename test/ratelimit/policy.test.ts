import { describe, expect, it } from 'vitest';
import { approximateTokens, DEFAULT_COMPLETION_ESTIMATE, estimateTokens } from '../../src/ratelimit/estimate.js';
import { chatCompletionsFacts } from '../../src/api/chat-completions/facts.js';
import { responsesFacts } from '../../src/api/responses/facts.js';
import { generateContentFacts } from '../../src/api/generate-content/facts.js';
import { imagesFacts } from '../../src/api/images/facts.js';
import { limitsFor } from '../../src/ratelimit/policy.js';
import { formatReset } from '../../src/plugins/rate-limit.js';
import { countTokens } from '../../src/simulator/text.js';
import type { ApiKey } from '../../src/keys/key-store.js';

const key = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 'key_1', name: 'k', prefix: 'sk-gw-abcdef', models: null, endpoints: null, tier: null, rpm: null, tpm: null,
  maxParallel: null, budgetUsd: null, expiresAt: null, revokedAt: null, disabledAt: null, createdAt: 0, owner: 'operator', ...over,
});

describe('limitsFor', () => {
  const tiers = { default: { default: { rpm: 60 } }, gold: { 'delta-4.1': { rpm: 100, tpm: 5000 }, default: { tpm: 900 } } };
  it("uses the key's own limits first, then the tier's model entry, then the tier's default entry", () => {
    expect(limitsFor(key({ rpm: 5 }), 'delta-4.1', tiers)).toEqual({ rpm: 5, tpm: null });
    expect(limitsFor(key({ tier: 'gold' }), 'delta-4.1', tiers)).toEqual({ rpm: 100, tpm: 5000 });
    expect(limitsFor(key({ tier: 'gold', tpm: 10 }), 'delta-4.1', tiers)).toEqual({ rpm: 100, tpm: 10 });
    expect(limitsFor(key({ tier: 'gold' }), 'epsilon-4.7', tiers)).toEqual({ rpm: null, tpm: 900 });
  });
  it('puts keys without a tier in the tier named default; without tiers there are no limits', () => {
    expect(limitsFor(key(), 'epsilon-4.7', tiers)).toEqual({ rpm: 60, tpm: null });
    expect(limitsFor(key(), 'epsilon-4.7', undefined)).toEqual({ rpm: null, tpm: null });
    expect(limitsFor(key({ tier: 'gone' }), 'epsilon-4.7', tiers)).toEqual({ rpm: null, tpm: null });
  });
});

describe('estimateTokens', () => {
  it('counts prompt text in every family shape plus the requested maximum', () => {
    const text = 'How many tokens is this sentence?';
    const n = approximateTokens(text);
    expect(estimateTokens(chatCompletionsFacts({ model: 'delta-4.1', messages: [{ role: 'user', content: text }], max_tokens: 50 } as never))).toBe(n + 50);
    expect(estimateTokens(chatCompletionsFacts({ messages: [{ role: 'user', content: [{ type: 'text', text }, { type: 'image_url', image_url: { url: 'https://example.com/a-long-url.png' } }] }], max_completion_tokens: 7 } as never))).toBe(n + 7);
    expect(estimateTokens(responsesFacts({ input: [{ role: 'user', content: [{ type: 'input_text', text }] }], instructions: text, max_output_tokens: 3 }))).toBe(2 * n + 3);
    expect(estimateTokens(generateContentFacts({ contents: [{ role: 'user', parts: [{ text }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }], generationConfig: { maxOutputTokens: 9 } }))).toBe(n + 9);
  });
  it('reserves the documented default when no maximum is asked for', () => {
    expect(estimateTokens(imagesFacts({ prompt: 'a red kite' }))).toBe(approximateTokens('a red kite') + DEFAULT_COMPLETION_ESTIMATE);
  });
  it('approximates within reach of the real tokenizer for English and CJK, never far below it', () => {
    const samples = [
      'Write a short paragraph about gateways, routing, streaming, latency and throughput under load.',
      '网关把每个请求路由到上游渠道，并在失败时重试和回退。',
      'Привет, как дела? Это короткое предложение на русском языке.',
    ];
    for (const text of samples) {
      const exact = countTokens(text);
      expect(approximateTokens(text)).toBeGreaterThanOrEqual(Math.floor(exact * 0.75));
      expect(approximateTokens(text)).toBeLessThanOrEqual(Math.ceil(exact * 2.5));
    }
  });
});

describe('formatReset', () => {
  it('writes durations the way OpenAI does', () => {
    expect(formatReset(0)).toBe('0s');
    expect(formatReset(1)).toBe('1s');
    expect(formatReset(59_001)).toBe('1m0s');
    expect(formatReset(125_000)).toBe('2m5s');
  });
});
