import type { Db } from '../db/connect.js';
import { rankMatches, unitOf, vectorBytes, vectorOf, type QuestionMatch, type SemanticQuestions } from './semantic-questions.js';

/**
 * Semantic mode's questions in PostgreSQL (`cache_questions`, 0029), so every instance on the
 * database matches the questions any of them stored. A lookup is one read on (bucket, created_at):
 * the bucket's newest `bucketLimit` live questions; the cosine is computed here (no pgvector).
 */
export class DbSemanticQuestions implements SemanticQuestions {
  constructor(
    private readonly db: Db,
    private readonly bucketLimit: number,
  ) {}

  async add(bucket: string, entryId: string, vector: Float32Array, createdAt: number, expiresAt: number): Promise<void> {
    const changed = { vector: vectorBytes(unitOf(vector)), created_at: createdAt, expires_at: expiresAt };
    await this.db
      .insertInto('cache_questions')
      .values({ bucket, entry_id: entryId, ...changed })
      .onConflict((c) => c.columns(['bucket', 'entry_id']).doUpdateSet(changed))
      .execute();
  }

  async matches(bucket: string, vector: Float32Array, now: number, threshold: number): Promise<QuestionMatch[]> {
    const rows = await this.db
      .selectFrom('cache_questions')
      .select(['entry_id', 'vector'])
      .where('bucket', '=', bucket)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(this.bucketLimit)
      .execute();
    return rankMatches(
      rows.map((r) => ({ entryId: r.entry_id, vector: vectorOf(r.vector) })),
      vector,
      threshold,
    );
  }

  async forget(bucket: string, entryId: string): Promise<void> {
    await this.db.deleteFrom('cache_questions').where('bucket', '=', bucket).where('entry_id', '=', entryId).execute();
  }

  /** Expired questions, and those whose entry a purge or the size cap removed. */
  async prune(now: number): Promise<void> {
    await this.db.deleteFrom('cache_questions').where('expires_at', '<=', now).execute();
    await this.db
      .deleteFrom('cache_questions')
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('response_cache').select('response_cache.id').whereRef('response_cache.id', '=', 'cache_questions.entry_id'))))
      .execute();
  }

  async count(now: number): Promise<number> {
    const row = await this.db.selectFrom('cache_questions').select((eb) => eb.fn.countAll<number>().as('n')).where('expires_at', '>', now).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
