import { describe, expect, it } from 'vitest';
import { jsonlLines } from '../../src/batches/input-lines.js';
import { batchDiscountOf, batchPriceOf } from '../../src/catalog/batch-price.js';
import { validateInput } from '../../src/batches/validate-input.js';

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('batch input lines (issue 46)', () => {
  it('splits JSONL across chunk boundaries, multi-byte characters and CRLF included, numbering blank lines', async () => {
    const text = '{"a":"é漢"}\r\n\n{"b":1}\n{"c":"🙂"}';
    const lines = await collect(jsonlLines(chunks(new TextEncoder().encode(text), 3)));
    expect(lines).toEqual([
      { line: 1, text: '{"a":"é漢"}' },
      { line: 3, text: '{"b":1}' },
      { line: 4, text: '{"c":"🙂"}' },
    ]);
  });

  it('stops counting past 50,000 requests and names the first line over', async () => {
    const line = JSON.stringify({ custom_id: 'x', method: 'POST', url: '/v1/embeddings', body: { model: 'm', input: 'a' } });
    const lines = Array.from({ length: 50_001 }, (_, i) => line.replace('"x"', `"x${i}"`)).join('\n');
    let valid = 0;
    const errors = await validateInput(chunks(new TextEncoder().encode(lines), 1 << 16), { endpoint: '/v1/embeddings', isServed: () => true, onLine: () => void (valid += 1) });
    expect(errors).toEqual([{ code: 'too_many_requests', message: expect.stringContaining('50000'), line: 50_001, param: null }]);
    expect(valid).toBe(50_000);
  });
});

describe('batch price (issue 46)', () => {
  const price = { prompt_per_1m: 2, completion_per_1m: 8, per_image_by_size: { '1024x1024': { default: 0.04 } }, long_context: [{ above_input_tokens: 200_000, prompt_per_1m: 4 }] };

  it('takes batch_discount off every money figure, never off token thresholds', () => {
    expect(batchPriceOf({ ...price, batch_discount: 0.25 }, batchDiscountOf({ ...price, batch_discount: 0.25 }, 'self', 0.5))).toEqual({
      prompt_per_1m: 1.5, completion_per_1m: 6, per_image_by_size: { '1024x1024': { default: 0.03 } }, long_context: [{ above_input_tokens: 200_000, prompt_per_1m: 3 }], batch_discount: 0.25,
    });
  });

  it('defaults to half price in a vendor batch and to the list price for lines the gateway runs itself', () => {
    expect(batchPriceOf(price, batchDiscountOf(price, 'native', 0.5))).toMatchObject({ prompt_per_1m: 1, completion_per_1m: 4 });
    expect(batchPriceOf(price, batchDiscountOf(price, 'self', 0.5))).toBe(price);
  });
});
