import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Db } from '../../src/db/connect.js';
import { VideoTaskRepo } from '../../src/tasks/task-repo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';

/** The task lease on PostgreSQL, with two connection pools standing for two instances. */
describe('video-task lease on PostgreSQL', () => {
  let database: TestDatabase;
  let one: Db;
  let two: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    [one, two] = await Promise.all([connectPostgres(database.url), connectPostgres(database.url)]);
  });
  afterAll(async () => {
    await Promise.all([one?.destroy(), two?.destroy()]);
    await database?.drop();
  });

  let counter = 0;
  const newTask = async (now: number) => {
    const id = `asyntask_lease${String(++counter).padStart(4, '0')}`;
    await new VideoTaskRepo(one).insert({ id, keyId: 'key_x', surface: 'video-generations', capability: null, model: 'zeta-1.0-r2v', channel: 'sim', upstreamId: 'u1', status: 'queued', progress: 0, request: {}, externalId: null, now, nextPollAt: now });
    return id;
  };

  it('lets exactly one of many concurrent claimers in, across pools', async () => {
    const now = Date.now();
    const id = await newTask(now);
    const claims = await Promise.all(Array.from({ length: 24 }, (_, i) => new VideoTaskRepo(i % 2 ? one : two).acquireLease(id, `owner-${i}`, now, 10_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const row = await database.db.selectFrom('video_tasks').select(['lease_owner', 'lease_until']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.lease_owner).toBe(`owner-${claims.indexOf(true)}`);
    expect(row.lease_until).toBe(now + 10_000);
  });

  it('hides a held task from other pollers, and hands it over once the lease has run out', async () => {
    const now = Date.now();
    const id = await newTask(now);
    const a = new VideoTaskRepo(one);
    const b = new VideoTaskRepo(two);
    expect(await a.acquireLease(id, 'dead-instance', now, 1_000)).toBe(true);
    expect((await b.findDue('video-generations', now + 500, 100)).map((t) => t.id)).not.toContain(id);
    expect(await b.acquireLease(id, 'survivor', now + 500, 1_000)).toBe(false);
    // The holder died: nobody renews; after the lease, the task is due for others again.
    expect((await b.findDue('video-generations', now + 1_001, 100)).map((t) => t.id)).toContain(id);
    expect(await b.acquireLease(id, 'survivor', now + 1_001, 1_000)).toBe(true);
    // A holder that only stalled finds out: no renewal, and nothing it saves is written.
    expect(await a.renewLease(id, 'dead-instance', now + 1_100, 1_000)).toBe(false);
    expect(await a.savePoll(id, 'dead-instance', now + 1_100, now + 2_000, { status: 'in_progress', progress: 50 })).toBe(false);
    expect(await b.renewLease(id, 'survivor', now + 1_200, 1_000)).toBe(true);
    expect(await b.savePoll(id, 'survivor', now + 1_300, now + 2_000, { status: 'in_progress', progress: 20 })).toBe(true);
    const row = await database.db.selectFrom('video_tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'in_progress', progress: 20, lease_owner: null, lease_until: null, polled_at: now + 1_300 });
  });
});
