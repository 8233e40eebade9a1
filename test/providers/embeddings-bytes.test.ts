import { describe, expect, it } from 'vitest';
import type { TranslateContext } from '../../src/contracts/translator.js';
import { embeddingsBytesFastPath } from '../../src/providers/openai-compatible/embeddings-bytes.js';

/** Issue 29, item 7: an OpenAI-compatible answer in the client's encoding is checked and renamed as bytes, never decoded. */
describe('embeddingsBytesFastPath', () => {
  const vector = Buffer.from(new Float32Array([0.25, -1.5]).buffer).toString('base64');
  const answer = (model: string, count = 2) =>
    Buffer.from(
      JSON.stringify({
        object: 'list',
        data: Array.from({ length: count }, (_, index) => ({ object: 'embedding', index, embedding: vector })),
        model,
        usage: { prompt_tokens: 7, total_tokens: 7 },
      }),
    );
  const ctx = (model: string, inputs = 2, encoding: 'base64' | 'float' = 'base64') => ({ model, upstreamModel: 'upstream', vectors: { encoding, inputs } }) as unknown as TranslateContext;

  it('renames a longer upstream model in place: the same buffer, the rest of the old value blank', () => {
    const bytes = answer('text-embedding-3-small-2024-upstream');
    const fast = embeddingsBytesFastPath(bytes, ctx('small'))!;
    expect(fast.body).toBe(bytes);
    expect(fast.usage).toMatchObject({ promptTokens: 7, totalTokens: 7 });
    const parsed = JSON.parse(fast.body.toString());
    expect(parsed.model).toBe('small');
    expect(parsed.data.map((d: { embedding: string }) => d.embedding)).toEqual([vector, vector]);
  });

  it('makes a new buffer when the public id is longer', () => {
    const bytes = answer('m');
    const fast = embeddingsBytesFastPath(bytes, ctx('a-much-longer-public-id'))!;
    expect(fast.body).not.toBe(bytes);
    expect(JSON.parse(fast.body.toString()).model).toBe('a-much-longer-public-id');
  });

  it('declines an answer with a vector per input missing, in another encoding, or without usage', () => {
    expect(embeddingsBytesFastPath(answer('m', 1), ctx('m', 2))).toBeUndefined();
    expect(embeddingsBytesFastPath(answer('m'), ctx('m', 2, 'float'))).toBeUndefined();
    expect(embeddingsBytesFastPath(Buffer.from(answer('m').toString().replace(/,"usage":\{[^}]*\}/, '')), ctx('m'))).toBeUndefined();
  });
});
