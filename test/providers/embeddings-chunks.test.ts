import { describe, expect, it } from 'vitest';
import type { TranslateContext } from '../../src/contracts/translator.js';
import { ByteChunks } from '../../src/providers/openai-compatible/byte-chunks.js';
import { embeddingsChunksFastPath } from '../../src/providers/openai-compatible/embeddings-chunks.js';

/** Cut into pieces of `size` bytes (views of one buffer), as a socket may deliver them. */
const cut = (bytes: Buffer, size: number): Buffer[] => Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

describe('ByteChunks', () => {
  const whole = Buffer.from('{"a":"model","model":"x","b":{"model":1},"model":"last"}');
  it('finds what a single buffer finds, across every way of cutting it', () => {
    for (const size of [1, 2, 3, 5, 7, 64]) {
      const body = new ByteChunks(cut(whole, size));
      for (const needle of ['"model"', 'model', '{', '"last"', 'absent']) {
        const n = Buffer.from(needle);
        expect(body.indexOf(n), `${needle} by ${size}`).toBe(whole.indexOf(n));
        expect(body.indexOf(n, 10), `${needle} from 10 by ${size}`).toBe(whole.indexOf(n, 10));
        expect(body.lastIndexOf(n), `last ${needle} by ${size}`).toBe(whole.lastIndexOf(n));
      }
      expect(body.slice(5, 30).toString()).toBe(whole.subarray(5, 30).toString());
      expect(Buffer.concat(body.replaced(21, 24, Buffer.from('"yy"'))).toString()).toBe('{"a":"model","model":"yy","b":{"model":1},"model":"last"}');
    }
  });
});

/** Issue 29, item 7: an OpenAI-compatible answer in the client's encoding is checked and renamed in its chunks, never joined. */
describe('embeddingsChunksFastPath', () => {
  const vector = Buffer.from(new Float32Array([0.25, -1.5]).buffer).toString('base64');
  // Its own memory (Buffer.from of a short string would share Node's pool with the new name).
  const own = (text: string) => {
    const bytes = Buffer.alloc(Buffer.byteLength(text));
    bytes.write(text);
    return bytes;
  };
  const answer = (model: string, count = 2) =>
    own(
      JSON.stringify({
        object: 'list',
        data: Array.from({ length: count }, (_, index) => ({ object: 'embedding', index, embedding: vector })),
        model,
        usage: { prompt_tokens: 7, total_tokens: 7 },
      }),
    );
  const ctx = (model: string, inputs = 2, encoding: 'base64' | 'float' = 'base64') => ({ model, upstreamModel: 'upstream', vectors: { encoding, inputs } }) as unknown as TranslateContext;

  it('renames the model between views of the chunks it came in, whatever their size', () => {
    for (const size of [3, 11, 4096]) {
      const chunks = cut(answer('text-embedding-3-small-upstream'), size);
      const fast = embeddingsChunksFastPath(chunks, ctx('small'))!;
      expect(fast.usage).toMatchObject({ promptTokens: 7, totalTokens: 7 });
      const parsed = JSON.parse(Buffer.concat(fast.chunks).toString());
      expect(parsed.model).toBe('small');
      expect(parsed.data.map((d: { embedding: string }) => d.embedding)).toEqual([vector, vector]);
      // Nothing copied: every chunk but the new name is a view of the upstream's memory.
      expect(fast.chunks.filter((chunk) => chunk.buffer !== chunks[0]!.buffer).map(String)).toEqual(['"small"']);
    }
  });

  it('declines an answer with a vector per input missing, in another encoding, or without usage', () => {
    expect(embeddingsChunksFastPath([answer('m', 1)], ctx('m', 2))).toBeUndefined();
    expect(embeddingsChunksFastPath([answer('m')], ctx('m', 2, 'float'))).toBeUndefined();
    expect(embeddingsChunksFastPath([Buffer.from(answer('m').toString().replace(/,"usage":\{[^}]*\}/, ''))], ctx('m'))).toBeUndefined();
  });
});
