import { describe, expect, it } from 'vitest';
import { PriceBook } from '../../src/catalog/price-book.js';
import { ChannelSettingsSchema } from '../../src/config/schema.js';
import { anthropic } from '../../src/providers/anthropic/index.js';
import { openai } from '../../src/providers/openai/index.js';
import { Value } from 'typebox/value';

describe('the batch price and the channel batch setting (issue 46)', () => {
  it('a natively batched line gets its vendor\'s discount, a gateway-run line none, unless the price sets batch_discount', () => {
    const book = new PriceBook({ 'house-model': { prompt_per_1m: 4, batch_discount: 0.25 } });
    book.setChannels([
      { name: 'oa', models: { 'delta-4.1': 'gpt-4.1', 'house-model': 'gpt-4.1' }, provider: openai },
      { name: 'claude', models: { 'alpha-sonnet-4-5-20250929': 'claude-sonnet-4-5-20250929' }, provider: anthropic },
      { name: 'own', models: { 'delta-4.1': 'gpt-4.1' }, prices: { 'delta-4.1': { prompt_per_1m: 2, batch_discount: 0 } }, provider: openai },
    ]);
    expect(book.batchDiscountFor('oa', 'delta-4.1', 'native')).toBe(0.5);
    expect(book.batchDiscountFor('claude', 'alpha-sonnet-4-5-20250929', 'native')).toBe(0.5);
    expect(book.batchDiscountFor('oa', 'delta-4.1', 'self')).toBe(0);
    expect(book.batchDiscountFor('oa', 'house-model', 'self')).toBe(0.25);
    expect(book.batchDiscountFor('own', 'delta-4.1', 'native')).toBe(0);
  });

  it('a channel takes batch: native | gateway and nothing else', () => {
    const channel = { name: 'c', vendor: 'openai', models: {} };
    expect(Value.Check(ChannelSettingsSchema, { ...channel, batch: 'native' })).toBe(true);
    expect(Value.Check(ChannelSettingsSchema, { ...channel, batch: 'gateway' })).toBe(true);
    expect(Value.Check(ChannelSettingsSchema, { ...channel, batch: 'sometimes' })).toBe(false);
  });
});
