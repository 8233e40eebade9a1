import type { Redis } from 'ioredis';
import { rankMatches, unitOf, vectorBytes, vectorOf, type QuestionMatch, type SemanticQuestions } from './semantic-questions.js';

/** A question as a list item: expiry (float64), the entry id's length and bytes, the unit vector (float32s). */
function encode(entryId: string, expiresAt: number, vector: Float32Array): Buffer {
  const head = Buffer.alloc(9);
  head.writeDoubleLE(expiresAt, 0);
  head.writeUInt8(entryId.length, 8);
  return Buffer.concat([head, Buffer.from(entryId, 'latin1'), vectorBytes(vector)]);
}

function decode(item: Buffer): { entryId: string; expiresAt: number; vector: Float32Array } {
  const idLength = item.readUInt8(8);
  return { expiresAt: item.readDoubleLE(0), entryId: item.toString('latin1', 9, 9 + idLength), vector: vectorOf(item, 9 + idLength) };
}

/**
 * Semantic mode's questions in Redis, beside the entries, so every instance on that Redis matches
 * the questions any of them stored. A bucket is one list `<prefix>q:<bucket>`, newest first,
 * trimmed to `bucketLimit` and expiring with its longest-lived question: a lookup is one LRANGE.
 * A purged entry's question stays until trimmed or expired; the lookup skips it (no entry).
 */
export class RedisSemanticQuestions implements SemanticQuestions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly bucketLimit: number,
  ) {}

  async add(bucket: string, entryId: string, vector: Float32Array, createdAt: number, expiresAt: number): Promise<void> {
    const key = this.keyOf(bucket);
    const ttlMs = Math.max(1, expiresAt - createdAt);
    await this.redis
      .multi()
      .lpush(key, encode(entryId, expiresAt, unitOf(vector)))
      .ltrim(key, 0, this.bucketLimit - 1)
      .pexpire(key, ttlMs, 'NX')
      .pexpire(key, ttlMs, 'GT')
      .exec();
  }

  async matches(bucket: string, vector: Float32Array, now: number, threshold: number): Promise<QuestionMatch[]> {
    const items = await this.redis.lrangeBuffer(this.keyOf(bucket), 0, this.bucketLimit - 1);
    const live = items.map(decode).filter((q) => q.expiresAt > now);
    return rankMatches(live, vector, threshold);
  }

  async forget(bucket: string, entryId: string): Promise<void> {
    const key = this.keyOf(bucket);
    const items = await this.redis.lrangeBuffer(key, 0, -1);
    for (const item of items) if (decode(item).entryId === entryId) await this.redis.lrem(key, 0, item);
  }

  /** Redis expires the lists; trimming bounds each. */
  async prune(): Promise<void> {}

  async count(): Promise<null> {
    return null;
  }

  private keyOf(bucket: string): string {
    return `${this.prefix}q:${bucket}`;
  }
}
