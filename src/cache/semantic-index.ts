/** A stored answer's question: its entry id, its embedding (unit length) and when the entry expires. */
interface IndexedQuestion {
  entryId: string;
  vector: Float32Array;
  expiresAt: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The semantic cache's in-process index (issue 32): questions grouped by bucket (family, model,
 * scope and the request without its last user turn), so a match is only ever searched among
 * requests that share everything but the question. Per instance and in memory: an instance knows
 * the questions it stored since it started. Past `maxEntries` the oldest bucket's oldest go first.
 */
export class SemanticIndex {
  private readonly buckets = new Map<string, IndexedQuestion[]>();
  private size = 0;

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  add(bucket: string, entryId: string, vector: Float32Array, expiresAt: number): void {
    const questions = this.buckets.get(bucket) ?? [];
    const kept = questions.filter((q) => q.entryId !== entryId);
    this.size -= questions.length - kept.length;
    kept.push({ entryId, vector: unitOf(vector), expiresAt });
    this.buckets.delete(bucket);
    this.buckets.set(bucket, kept);
    this.size++;
    while (this.size > this.maxEntries) this.dropOldest();
  }

  /** The most similar live question of the bucket at or above the threshold. */
  nearest(bucket: string, vector: Float32Array, now: number, threshold: number): { entryId: string; similarity: number } | undefined {
    const questions = this.buckets.get(bucket);
    if (!questions) return undefined;
    const query = unitOf(vector);
    let best: { entryId: string; similarity: number } | undefined;
    for (const question of questions) {
      if (question.expiresAt <= now || question.vector.length !== query.length) continue;
      const similarity = dot(question.vector, query);
      if (similarity >= threshold && (!best || similarity > best.similarity)) best = { entryId: question.entryId, similarity };
    }
    return best;
  }

  /** Forgets an entry the store no longer has (purged, expired, evicted). */
  forget(bucket: string, entryId: string): void {
    const questions = this.buckets.get(bucket);
    if (!questions) return;
    const kept = questions.filter((q) => q.entryId !== entryId);
    this.size -= questions.length - kept.length;
    if (kept.length === 0) this.buckets.delete(bucket);
    else this.buckets.set(bucket, kept);
  }

  get count(): number {
    return this.size;
  }

  private dropOldest(): void {
    const first = this.buckets.entries().next();
    if (first.done) return;
    const [bucket, questions] = first.value;
    questions.shift();
    this.size--;
    if (questions.length === 0) this.buckets.delete(bucket);
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Vendors do not all return unit vectors; cosine similarity is the dot product of unit vectors. */
function unitOf(vector: Float32Array): Float32Array {
  const norm = Math.sqrt(dot(vector, vector));
  if (norm === 0 || Math.abs(norm - 1) < 1e-6) return vector;
  return vector.map((v) => v / norm);
}
