import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSqlite, type Db } from '../../src/db/connect.js';
import { VideoTaskRepo } from '../../src/tasks/task-repo.js';
import { canTransition, estimateProgress, isTerminal, observedChange, type VideoTask, type VideoTaskStatus } from '../../src/tasks/video-task.js';

const STATES: VideoTaskStatus[] = ['queued', 'in_progress', 'completed', 'failed'];

const task = (status: VideoTaskStatus, progress = 0): VideoTask => ({
  id: 't', keyId: 'k', surface: 'video-generations', capability: null, model: 'm', channel: 'c', upstreamId: 'u',
  status, progress, request: {}, result: undefined, error: undefined, externalId: null,
  createdAt: 0, updatedAt: 0, completedAt: null, polledAt: null, pollFailures: 0,
});

describe('video task state machine', () => {
  it('allows only forward transitions and ends in completed or failed', () => {
    const legal = STATES.flatMap((from) => STATES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`));
    expect(legal).toEqual(['queued→in_progress', 'queued→completed', 'queued→failed', 'in_progress→completed', 'in_progress→failed']);
    expect(STATES.filter(isTerminal)).toEqual(['completed', 'failed']);
  });

  it('ignores an upstream that steps back, and anything after a terminal state', () => {
    expect(observedChange(task('in_progress', 30), { status: 'queued' }, 1_000)).toBeUndefined();
    expect(observedChange(task('completed', 100), { status: 'failed', error: { code: 'generation_failed', message: 'x' } }, 1_000)).toBeUndefined();
    expect(observedChange(task('queued'), { status: 'in_progress' }, 1_000)).toMatchObject({ status: 'in_progress' });
    expect(observedChange(task('queued'), { status: 'failed', error: { code: 'expired', message: 'gone' } }, 1_000)).toEqual({ status: 'failed', progress: 0, error: { code: 'expired', message: 'gone' } });
  });

  it('estimates progress that only rises and stays below 100 until completion', () => {
    const samples = [0, 1_000, 10_000, 60_000, 600_000].map((ms) => estimateProgress(0, ms));
    expect(samples).toEqual([...samples].sort((a, b) => a - b));
    expect(samples[0]).toBeGreaterThan(0);
    expect(Math.max(...samples)).toBeLessThanOrEqual(95);
    expect(estimateProgress(80, 0)).toBe(80);
  });
});

describe('video task leases', () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-tasks-'));
    db = await connectSqlite(dir);
  });
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets one poller hold a task until it releases it or the lease runs out', async () => {
    const repo = new VideoTaskRepo(db);
    await repo.insert({ id: 'asyntask_lease', keyId: 'k', surface: 'video-generations', capability: null, model: 'm', channel: 'c', upstreamId: 'u', status: 'queued', progress: 0, request: {}, externalId: null, now: 1_000, nextPollAt: 1_000 });
    expect(await repo.acquireLease('asyntask_lease', 'a', 2_000, 10_000)).toBe(true);
    expect(await repo.acquireLease('asyntask_lease', 'b', 3_000, 10_000)).toBe(false);
    expect(await repo.findDue('video-generations', 5_000, 10)).toEqual([]);
    expect(await repo.acquireLease('asyntask_lease', 'b', 12_001, 10_000)).toBe(true);
    await repo.savePoll('asyntask_lease', 'a', 12_002, 13_000); // a's lease is gone: its write is ignored
    expect((await repo.findById('asyntask_lease'))!.polledAt).toBe(1_000);
    await repo.savePoll('asyntask_lease', 'b', 12_003, 13_000, { status: 'in_progress', progress: 12 });
    const saved = (await repo.findById('asyntask_lease'))!;
    expect(saved).toMatchObject({ status: 'in_progress', progress: 12, polledAt: 12_003 });
    expect(await repo.acquireLease('asyntask_lease', 'a', 12_004, 10_000)).toBe(true);
  });
});
