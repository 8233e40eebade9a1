import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey } from '../../helpers/admin.js';
import { call, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { eventually, TEST_REDIS_URL } from '../../helpers/services.js';
import { startSharedCacheInstances, type SharedCacheInstances, type SharedCacheStore } from '../../helpers/shared-cache-instances.js';

const AUTH = { authorization: `Bearer ${TEST_KEY}` };
const chat = (content: string) => ({ model: 'delta-4.1', messages: [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content }] });

/** How many questions the store holds: rows of `cache_questions`, items of the Redis bucket lists. */
type Store = [SharedCacheStore, (first: TestGateway, redis: Redis, prefix: string) => Promise<number>];
const stores: Store[] = [
  ['PostgreSQL', async (first) => (await first.deps.db.selectFrom('cache_questions').select('entry_id').execute()).length],
  [
    'Redis',
    async (_first, redis, prefix) => {
      let count = 0;
      for (const key of await redis.keys(`${prefix}q:*`)) count += await redis.llen(key);
      return count;
    },
  ],
];

/**
 * Semantic mode on a store two instances share (issue 32): the questions live beside the entries
 * (PostgreSQL `cache_questions`, Redis lists), so a question stored through one instance is
 * matched on the other. The simulator's embeddings are a bag of words (see semantic-cache.test.ts).
 */
describe.each(stores)('semantic response cache shared by two instances on %s (issue 32)', (store, questionsStored) => {
  const prefix = `test:semantic:${randomUUID()}:`;
  let instances: SharedCacheInstances;
  let redis: Redis;
  let first: TestGateway;
  let second: TestGateway;
  const chatCalls = (gateway: TestGateway) => [...gateway.deps.simulators.values()].reduce((n, s) => n + s.requests.filter((r) => !r.path.includes('embed')).length, 0);
  /** Questions are written after the answer is sent (after its entry landed): wait for this many. */
  /** PostgreSQL: questions whose entry is gone. */
  const orphans = async () => {
    const entries = new Set((await first.deps.db.selectFrom('response_cache').select('id').execute()).map((r) => r.id));
    return (await first.deps.db.selectFrom('cache_questions').select('entry_id').execute()).filter((q) => !entries.has(q.entry_id)).length;
  };
  const stored = (count: number) => eventually(async () => ((await questionsStored(first, redis, prefix)) >= count ? true : undefined));

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    instances = await startSharedCacheInstances(store, {
      cache: { enabled: true, mode: 'semantic', redis_prefix: prefix, semantic: { embedding_model: 'text-embedding-3-small', threshold: 0.95 } },
    });
    ({ first, second } = instances);
  });
  afterAll(async () => {
    await instances?.stop();
    redis.disconnect();
  });

  it('a question stored through one instance is a semantic hit on the other; a different question with similar words is not', async () => {
    const miss = await call(first, 'POST', '/v1/chat/completions', chat('What is the capital of France?'), AUTH);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    await stored(1);
    const before = chatCalls(second);
    const paraphrase = await call(second, 'POST', '/v1/chat/completions', chat('what is the capital of france'), AUTH);
    expect(paraphrase.headers.get('x-cache')).toBe('HIT');
    expect(paraphrase.headers.get('x-cache-match')).toMatch(/^semantic; similarity=(1\.0000|0\.99)/);
    expect(paraphrase.text).toBe(miss.text);
    expect(chatCalls(second)).toBe(before);

    const spain = await call(second, 'POST', '/v1/chat/completions', chat('What is the capital of Spain?'), AUTH);
    expect(spain.headers.get('x-cache')).toBe('MISS');
    expect(chatCalls(second)).toBe(before + 1);
    // Streamed on the first instance: the second instance's question, replayed as a stream.
    await stored(2);
    const streamed = await call(first, 'POST', '/v1/chat/completions', { ...chat('what is the capital of SPAIN'), stream: true }, AUTH);
    expect(streamed.headers.get('x-cache')).toBe('HIT');
    expect(streamed.text).toContain('data: [DONE]');
  });

  it("another tenant's key never gets it, on either instance", async () => {
    await call(first, 'POST', '/v1/chat/completions', chat('How tall is Mount Everest?'), AUTH);
    await stored(3);
    // One key per instance: a tenant's own miss is then stored in its own scope.
    for (const gateway of [second, first]) {
      const other = await createKey(gateway, { name: `another tenant ${randomUUID()}` });
      const answer = await call(gateway, 'POST', '/v1/chat/completions', chat('how tall is mount everest'), bearer(other.key));
      expect(answer.headers.get('x-cache')).toBe('MISS');
    }
    expect((await call(second, 'POST', '/v1/chat/completions', chat('how tall is mount everest'), AUTH)).headers.get('x-cache')).toBe('HIT');
  });

  it('a purge through one instance: the other no longer serves the purged answers semantically', async () => {
    await call(first, 'POST', '/v1/chat/completions', chat('Who painted the Mona Lisa?'), AUTH);
    await eventually(async () => ((await call(second, 'POST', '/v1/chat/completions', chat('who painted the mona lisa'), AUTH)).headers.get('x-cache') === 'HIT' ? true : undefined));
    const purged = await call(first, 'DELETE', '/v1/gateway/cache', undefined, AUTH);
    expect(purged.json.deleted).toBeGreaterThan(0);
    if (store === 'PostgreSQL') expect(await orphans()).toBe(0);
    expect((await call(second, 'POST', '/v1/chat/completions', chat('who painted the MONA LISA'), AUTH)).headers.get('x-cache')).toBe('MISS');
  });

  it.runIf(store === 'PostgreSQL')('PostgreSQL: the sweep drops expired questions, those whose entry is gone, and expired fill leases', async () => {
    await call(first, 'POST', '/v1/chat/completions', chat('Which planet is the largest?'), AUTH);
    await call(first, 'POST', '/v1/chat/completions', chat('How deep is the ocean?'), { ...AUTH, 'x-gateway-cache-ttl': '1' });
    await eventually(async () => ((await first.deps.db.selectFrom('cache_questions').select('entry_id').execute()).length >= 2 ? true : undefined));
    // Removed behind the cache's back (as the size cap does): the next sweep drops its question.
    await first.deps.db.deleteFrom('response_cache').where('model', '=', 'delta-4.1').where('expires_at', '>', Date.now() + 10_000).execute();
    expect(await orphans()).toBeGreaterThan(0);
    await first.deps.db.insertInto('cache_fill_leases').values({ id: 'crashed leader', holder: 'gone', expires_at: Date.now() - 1 }).execute();
    await new Promise((r) => setTimeout(r, 1100));
    await first.deps.responseCache.sweep();
    expect(await orphans()).toBe(0);
    expect(await first.deps.db.selectFrom('cache_questions').select('entry_id').where('expires_at', '<=', Date.now()).execute()).toHaveLength(0);
    expect(await first.deps.db.selectFrom('cache_fill_leases').select('id').execute()).toHaveLength(0);
  });
});
