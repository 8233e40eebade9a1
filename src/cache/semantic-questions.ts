/** A stored question at or above the match bar. */
export interface QuestionMatch {
  entryId: string;
  similarity: number;
}

/**
 * Where semantic mode keeps the questions of stored answers (issue 32): in process on SQLite
 * (semantic-index.ts), beside the entries where instances share them (PostgreSQL:
 * db-semantic-questions.ts; Redis: redis-semantic-questions.ts). A bucket holds the questions of
 * requests equal in all but the last user turn (family, model, scope, the rest of the request).
 */
export interface SemanticQuestions {
  add(bucket: string, entryId: string, vector: Float32Array, createdAt: number, expiresAt: number): Promise<void>;
  /** The bucket's live questions at or above the threshold, most similar first. */
  matches(bucket: string, vector: Float32Array, now: number, threshold: number): Promise<QuestionMatch[]>;
  /** Forgets a question whose entry the store no longer has (purged, evicted). */
  forget(bucket: string, entryId: string): Promise<void>;
  /** Background: drops expired questions and those whose entry is gone. */
  prune(now: number): Promise<void>;
  /** Live questions (the admin view); null where counting would scan the store. */
  count(now: number): Promise<number | null>;
}

/** With a shared store: the newest questions of a bucket a lookup compares (one bounded read). */
export const DEFAULT_BUCKET_LIMIT = 200;

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Vendors do not all return unit vectors; cosine similarity is the dot product of unit vectors. */
export function unitOf(vector: Float32Array): Float32Array {
  const norm = Math.sqrt(dot(vector, vector));
  if (norm === 0 || Math.abs(norm - 1) < 1e-6) return vector;
  return vector.map((v) => v / norm);
}

/** Candidates (unit vectors) at or above the threshold against the query, most similar first. */
export function rankMatches(candidates: Iterable<{ entryId: string; vector: Float32Array }>, vector: Float32Array, threshold: number): QuestionMatch[] {
  const query = unitOf(vector);
  const found: QuestionMatch[] = [];
  for (const candidate of candidates) {
    if (candidate.vector.length !== query.length) continue;
    const similarity = dot(candidate.vector, query);
    if (similarity >= threshold) found.push({ entryId: candidate.entryId, similarity });
  }
  return found.sort((a, b) => b.similarity - a.similarity);
}

/** A vector as float32 little-endian bytes (a bytea column, a Redis value). */
export function vectorBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes;
}

export function vectorOf(bytes: Uint8Array, offset = 0): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, bytes.byteLength - offset);
  const vector = new Float32Array(Math.floor(view.byteLength / 4));
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
