import type { EmbeddingsRequest } from './schemas.js';

/**
 * What admission reads of an embeddings request: its texts (their tokens are the reservation)
 * and no output at all (`max_tokens: 0`, so no completion is reserved). Token-id inputs are
 * reserved as nothing and settled to the real count when the request ends.
 */
export function admissionBodyOf(request: EmbeddingsRequest): { input: string[]; max_tokens: 0 } {
  return { input: typeof request.inputs[0] === 'string' ? (request.inputs as string[]) : [], max_tokens: 0 };
}
