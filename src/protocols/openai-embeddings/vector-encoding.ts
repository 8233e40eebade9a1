import type { EmbeddingEncoding } from './types.js';

/**
 * OpenAI's base64 vectors are the float32 values, little-endian, back to back (embeddings.md §1).
 * Buffers only: no per-value strings, and explicit byte order whatever the machine's.
 */
export function floatsToBase64(values: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) bytes.writeFloatLE(values[i]!, i * 4);
  return bytes.toString('base64');
}

export function base64ToFloats(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const values = new Array<number>(bytes.length >> 2);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readFloatLE(i * 4);
  return values;
}

/** The vector in `encoding`; unchanged (no copy) when it already is. */
export function vectorIn(vector: number[] | string, encoding: EmbeddingEncoding): number[] | string {
  if (typeof vector === 'string') return encoding === 'base64' ? vector : base64ToFloats(vector);
  return encoding === 'float' ? vector : floatsToBase64(vector);
}

/** The vector's length without decoding it. */
export function dimensionsOf(vector: number[] | string): number {
  if (typeof vector !== 'string') return vector.length;
  const padding = vector.endsWith('==') ? 2 : vector.endsWith('=') ? 1 : 0;
  return ((vector.length * 3) / 4 - padding) / 4;
}

/**
 * Where the first vector's value starts in an answer's JSON text: after the first `"embedding"`
 * used as a key (`"object":"embedding"` uses it as a value). -1 when there is none.
 */
export function firstVectorAt(text: string): number {
  const key = /"embedding"\s*:\s*/g.exec(text);
  return key ? key.index + key[0].length : -1;
}
