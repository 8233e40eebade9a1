import { describe, expect, it } from 'vitest';
import { priceUsage } from '../../src/usage/cost-lines.js';
import { worstCaseCost } from '../../src/usage/worst-case.js';
import { chatCompletionsFacts } from '../../src/api/chat-completions/facts.js';
import { videoGenerationsFacts } from '../../src/api/video-generations/facts.js';

const chat = (body: object) => chatCompletionsFacts(body as never);
import { PriceBook } from '../../src/catalog/price-book.js';
import { PRICE_SHEET } from '../../src/catalog/price-sheet.js';
import { CATALOG } from '../../src/catalog/models.js';
import { PROVIDERS } from '../../src/providers/registry.js';
import type { PriceConfig } from '../../src/config/schema.js';

const none = { promptTokens: 0, completionTokens: 0, images: 0, videoSeconds: 0 };
const close = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThan(1e-12);

describe('prices for every billed dimension (issue 21)', () => {
  it('splits input into fresh, cached, 5-minute and 1-hour writes and image tokens; output into text, reasoning and image tokens', () => {
    const price: PriceConfig = {
      prompt_per_1m: 3, cached_prompt_per_1m: 0.3, cache_write_5m_per_1m: 3.75, cache_write_1h_per_1m: 6, image_prompt_per_1m: 10,
      completion_per_1m: 15, reasoning_per_1m: 20, image_completion_per_1m: 40,
    };
    const priced = priceUsage(price, {
      ...none, promptTokens: 10_000, cachedTokens: 5_000, cacheWrite5mTokens: 1_000, cacheWrite1hTokens: 2_000, imageInputTokens: 500,
      completionTokens: 3_000, reasoningTokens: 1_000, imageOutputTokens: 1_500,
    });
    expect(priced.lines.map((l) => [l.dimension, l.quantity, l.unit_usd])).toEqual([
      ['input', 1_500, 3], ['cached_input', 5_000, 0.3], ['cache_write_5m', 1_000, 3.75], ['cache_write_1h', 2_000, 6], ['image_input', 500, 10],
      ['output', 500, 15], ['reasoning', 1_000, 20], ['image_output', 1_500, 40],
    ]);
    close(priced.usd, (1_500 * 3 + 5_000 * 0.3 + 1_000 * 3.75 + 2_000 * 6 + 500 * 10 + 500 * 15 + 1_000 * 20 + 1_500 * 40) / 1e6);
  });

  it('falls back to the input or output price for dimensions left unpriced, and never bills more parts than the whole', () => {
    const priced = priceUsage({ prompt_per_1m: 2, completion_per_1m: 8 }, { ...none, promptTokens: 100, cachedTokens: 500, completionTokens: 10, reasoningTokens: 50 });
    // A vendor reporting more cached than prompt tokens is read as all cached; reasoning as all output.
    expect(priced.lines.map((l) => [l.dimension, l.quantity, l.unit_usd])).toEqual([['cached_input', 100, 2], ['reasoning', 10, 8]]);
    // A 1-hour write without its own price costs what a 5-minute write does.
    expect(priceUsage({ prompt_per_1m: 1, cache_write_5m_per_1m: 1.25 }, { ...none, promptTokens: 10, cacheWrite1hTokens: 10 }).lines[0]).toMatchObject({ dimension: 'cache_write_1h', unit_usd: 1.25 });
    expect(priceUsage({}, { ...none, promptTokens: 1e6 }).usd).toBe(0);
  });

  it('bills the whole request at the highest long-context tier its input passes (cache reads and writes included)', () => {
    const price: PriceConfig = {
      prompt_per_1m: 1, completion_per_1m: 2,
      long_context: [{ above_input_tokens: 32_000, prompt_per_1m: 1.5, completion_per_1m: 3 }, { above_input_tokens: 128_000, prompt_per_1m: 3, completion_per_1m: 6 }],
    };
    close(priceUsage(price, { ...none, promptTokens: 32_000, completionTokens: 1_000 }).usd, (32_000 * 1 + 1_000 * 2) / 1e6);
    close(priceUsage(price, { ...none, promptTokens: 32_001, completionTokens: 1_000 }).usd, (32_001 * 1.5 + 1_000 * 3) / 1e6);
    close(priceUsage(price, { ...none, promptTokens: 200_000, cachedTokens: 150_000, completionTokens: 1_000 }).usd, (200_000 * 3 + 1_000 * 6) / 1e6);
  });

  it('prices images by size and quality, and video seconds by resolution, with defaults and the flat price behind them', () => {
    const images: PriceConfig = { per_image: 0.05, per_image_by_size: { '1024x1024': { low: 0.011, high: 0.167, default: 0.042 }, default: { default: 0.1 } } };
    expect(priceUsage(images, { ...none, images: 2, imageSize: '1024x1024', imageQuality: 'high' }).usd).toBe(0.334);
    expect(priceUsage(images, { ...none, images: 1, imageSize: '1024x1024' }).usd).toBe(0.042);
    expect(priceUsage(images, { ...none, images: 1, imageSize: '4096x4096', imageQuality: 'low' }).usd).toBe(0.1);
    expect(priceUsage({ per_image: 0.05 }, { ...none, images: 3 }).usd).toBe(0.15);
    const video: PriceConfig = { per_video_second: 0.2, per_video_second_by_resolution: { '720P': 0.1, '1080P': 0.15 } };
    expect(priceUsage(video, { ...none, videoSeconds: 10, videoResolution: '720p' }).lines).toEqual([{ dimension: 'video_seconds', quantity: 10, unit_usd: 0.1, usd: 1 }]);
    expect(priceUsage(video, { ...none, videoSeconds: 10, videoResolution: '1080P' }).usd).toBe(1.5);
    expect(priceUsage(video, { ...none, videoSeconds: 10 }).usd).toBe(2);
  });

  it('holds the worst case at the dearest rate of each kind: a 1-hour cache write for input, the long tier past its threshold', () => {
    const claude = PRICE_SHEET.find((v) => v.vendor === 'anthropic')!.models['claude-sonnet-4-5-20250929']!.price;
    const prompt = 'word '.repeat(4_000);
    const small = worstCaseCost([claude], chat({ messages: [{ role: 'user', content: prompt }], max_tokens: 1_000 }), 0);
    const tokens = Math.round((small - 1_000 * 15e-6) / 6e-6);
    expect(tokens).toBeGreaterThan(3_000);
    close(small, (tokens * 6 + 1_000 * 15) / 1e6);
    // Two channels serving the model at different prices: the dearer one is held.
    expect(worstCaseCost([{ completion_per_1m: 1 }, { completion_per_1m: 3 }], chat({ max_tokens: 1_000_000 }), 0)).toBe(3);
    expect(worstCaseCost([{ per_video_second_by_resolution: { '720P': 0.1, '1080P': 0.15 } }], videoGenerationsFacts({ resolution: '720P' }), 10)).toBe(1);
    expect(worstCaseCost([{ per_video_second_by_resolution: { '720P': 0.1, '1080P': 0.15 } }], videoGenerationsFacts({}), 10)).toBe(1.5);
    expect(worstCaseCost([], chat({ max_tokens: 10 }), 0)).toBe(0);
  });
});

describe('the built-in price sheet and which price applies (issue 21)', () => {
  it('prices every model of the default catalog through its vendor\'s upstream name, Kling\'s included (issue 34: budgets hold on /videoalt)', () => {
    const book = new PriceBook();
    book.setChannels(PROVIDERS.map((provider) => ({ name: `simulator-${provider.vendor}`, models: provider.defaultModels })));
    const unpriced = CATALOG.filter((m) => m.kind !== 'asset' && !book.priceFor(`simulator-${PROVIDERS.find((p) => Object.hasOwn(p.defaultModels, m.id))!.vendor}`, m.id)).map((m) => m.id);
    expect(unpriced).toEqual([]);
    for (const vendor of PRICE_SHEET) expect(vendor.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('a channel\'s price wins over the operator\'s, which wins over the sheet; the admin API\'s over the file\'s', () => {
    const book = new PriceBook({ 'delta-4.1': { prompt_per_1m: 7 } });
    book.setChannels([
      { name: 'a', models: { 'delta-4.1': 'gpt-4.1' } },
      { name: 'b', models: { 'delta-4.1': 'gpt-4.1' }, prices: { 'delta-4.1': { prompt_per_1m: 9 } } },
      { name: 'c', models: { 'my-model': 'gpt-4o-mini' } },
    ]);
    expect(book.priceFor('a', 'delta-4.1')).toMatchObject({ source: 'operator', price: { prompt_per_1m: 7 } });
    expect(book.priceFor('b', 'delta-4.1')).toMatchObject({ source: 'channel', price: { prompt_per_1m: 9 } });
    expect(book.priceFor('c', 'my-model')).toMatchObject({ source: 'builtin', sheetModel: 'gpt-4o-mini', price: { prompt_per_1m: 0.15 } });
    expect(book.candidatesFor('delta-4.1').map((p) => p.prompt_per_1m).sort()).toEqual([7, 9]);
    book.setRuntimePrices(new Map([['delta-4.1', { prompt_per_1m: 8 }]]));
    expect(book.priceFor('a', 'delta-4.1')).toMatchObject({ source: 'operator', price: { prompt_per_1m: 8 } });
    expect(new PriceBook({}, false).priceFor(undefined, 'gpt-4o')).toBeUndefined();
  });
});
