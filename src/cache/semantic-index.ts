import { rankMatches, unitOf, type QuestionMatch, type SemanticQuestions } from './semantic-questions.js';

/** A stored answer's question: its entry id, its embedding (unit length) and when the entry expires. */
interface IndexedQuestion {
  entryId: string;
  vector: Float32Array;
  expiresAt: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The semantic cache's in-process index (issue 32), for the SQLite store, which one instance owns:
 * questions grouped by bucket, so a match is only ever searched among requests that share
 * everything but the question. In memory: the questions stored since the instance started. Past
 * `maxEntries` the oldest bucket's oldest go first.
 */
export class SemanticIndex implements SemanticQuestions {
  private readonly buckets = new Map<string, IndexedQuestion[]>();
  private size = 0;

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  async add(bucket: string, entryId: string, vector: Float32Array, _createdAt: number, expiresAt: number): Promise<void> {
    const questions = this.buckets.get(bucket) ?? [];
    const kept = questions.filter((q) => q.entryId !== entryId);
    this.size -= questions.length - kept.length;
    kept.push({ entryId, vector: unitOf(vector), expiresAt });
    this.buckets.delete(bucket);
    this.buckets.set(bucket, kept);
    this.size++;
    while (this.size > this.maxEntries) this.dropOldest();
  }

  async matches(bucket: string, vector: Float32Array, now: number, threshold: number): Promise<QuestionMatch[]> {
    const questions = this.buckets.get(bucket);
    return questions ? rankMatches(questions.filter((q) => q.expiresAt > now), vector, threshold) : [];
  }

  async forget(bucket: string, entryId: string): Promise<void> {
    const questions = this.buckets.get(bucket);
    if (!questions) return;
    const kept = questions.filter((q) => q.entryId !== entryId);
    this.size -= questions.length - kept.length;
    if (kept.length === 0) this.buckets.delete(bucket);
    else this.buckets.set(bucket, kept);
  }

  /** Expired questions go when a lookup finds their entry gone, or as the oldest past the cap. */
  async prune(): Promise<void> {}

  async count(): Promise<number> {
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
