/**
 * The simulator's embeddings (issue 29): a hashed bag of words. Each word adds ±1 at a few
 * positions picked by hashing it, and the sum is scaled to unit length, so texts sharing words
 * point the same way and unrelated texts are near orthogonal; the same text gives the same vector
 * on every instance and every run (no randomness, no state). Retrieval can be tried end to end.
 */

/** Positions each word touches: enough that two words rarely cancel out, few enough to stay sparse. */
export const POSITIONS_PER_WORD = 4;

/**
 * FNV-1a over the word's UTF-16 units, seeded: a different hash per position. These functions
 * also run in the simulator's vector threads from their own source (vector-pool.ts): they use
 * nothing but each other, POSITIONS_PER_WORD and globals.
 */
export function hashWord(word: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < word.length; i++) {
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Lower-cased runs of letters and digits; token-id inputs are words of their own (`#123`). */
export function wordsOf(input: string | readonly number[]): string[] {
  if (typeof input !== 'string') return input.map((id) => `#${id}`);
  return input.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The unit vector of a text (or token array) in `dimensions` dimensions. */
export function embeddingVector(input: string | readonly number[], dimensions: number): Float32Array {
  const sums = new Float64Array(dimensions);
  const words = wordsOf(input);
  for (const word of words.length > 0 ? words : [' ']) {
    for (let k = 0; k < POSITIONS_PER_WORD; k++) {
      const hash = hashWord(word, k);
      const at = hash % dimensions;
      sums[at] = sums[at]! + (hash & 0x80000000 ? -1 : 1);
    }
  }
  let norm = 0;
  for (const value of sums) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = sums[i]! * scale;
  return vector;
}

/** Cosine similarity of two unit vectors of the same length. */
export function similarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** The little-endian float32 bytes as base64 (OpenAI's `encoding_format: "base64"`). */
export function vectorToBase64(vector: Float32Array): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}
