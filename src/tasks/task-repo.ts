import type { Selectable } from 'kysely';
import type { Db } from '../db/connect.js';
import { GatewayError } from '../errors.js';
import type { VideoTaskTable } from '../db/schema.js';
import type { TaskChange, VideoSurface, VideoTask, VideoTaskResult, VideoTaskStatus } from './video-task.js';
import type { VideoTaskFailure } from '../contracts/video-adapter.js';

/** What creating a task records: the task's identity and first state, plus when to poll it. */
export type NewVideoTask = Pick<
  VideoTask,
  'id' | 'keyId' | 'surface' | 'capability' | 'model' | 'channel' | 'upstreamId' | 'status' | 'progress' | 'request' | 'externalId'
> & { now: number; nextPollAt: number; reservedUsd?: number };

/** The upstream id of a row whose submission has not finished (the row is written first). */
export const NOT_SUBMITTED = '';

/** A unique index refused the row (SQLite and PostgreSQL name it differently). */
export const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
};

/** Kysely access to `video_tasks`. Writes that follow a poll require the caller's lease. */
export class VideoTaskRepo {
  constructor(private readonly db: Db) {}

  /**
   * Writes the row. A second task with the key's `external_task_id` is refused here, by the
   * unique index, so parallel creations with one id cannot both pass a check and both be paid.
   */
  async insert(task: NewVideoTask): Promise<VideoTask> {
    const row: Selectable<VideoTaskTable> = {
      id: task.id,
      key_id: task.keyId,
      surface: task.surface,
      capability: task.capability,
      model: task.model,
      channel: task.channel,
      upstream_id: task.upstreamId,
      status: task.status,
      progress: task.progress,
      request: JSON.stringify(task.request),
      result: null,
      error_code: null,
      error_message: null,
      created_at: task.now,
      updated_at: task.now,
      completed_at: null,
      next_poll_at: task.nextPollAt,
      lease_owner: null,
      lease_until: null,
      charged: 0,
      polled_at: task.now,
      poll_failures: 0,
      external_id: task.externalId,
      reserved_usd: task.reservedUsd ?? 0,
    };
    try {
      await this.db.insertInto('video_tasks').values(row).execute();
    } catch (error) {
      if (task.externalId !== null && isUniqueViolation(error)) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', `'external_task_id' '${task.externalId}' is already used by another task`, { param: 'external_task_id' });
      }
      throw error;
    }
    return toVideoTask(row);
  }

  /** The upstream accepted the task: from now on it is polled. */
  async markSubmitted(id: string, channel: string, upstreamId: string, now: number): Promise<void> {
    await this.db.updateTable('video_tasks').set({ channel, upstream_id: upstreamId, next_poll_at: now + 1_000, polled_at: now, updated_at: now }).where('id', '=', id).execute();
  }

  /** The submission failed: no task exists upstream, so neither does ours (its external id is free again). */
  async discard(id: string): Promise<void> {
    await this.db.deleteFrom('video_tasks').where('id', '=', id).where('upstream_id', '=', NOT_SUBMITTED).execute();
  }

  /** The worst-case cost of the key's tasks still running (held against its budget until they end). */
  async pendingCost(keyId: string): Promise<number> {
    const row = await this.db
      .selectFrom('video_tasks')
      .select((eb) => eb.fn.sum<number | string | null>('reserved_usd').as('usd'))
      .where('key_id', '=', keyId)
      .where('status', 'in', ['queued', 'in_progress'])
      .executeTakeFirst();
    return Number(row?.usd ?? 0);
  }

  /** A key sees only its own tasks; anything else reads as absent. */
  async findForKey(id: string, keyId: string, surface: VideoSurface): Promise<VideoTask | undefined> {
    const row = await this.db
      .selectFrom('video_tasks')
      .selectAll()
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .where('surface', '=', surface)
      .executeTakeFirst();
    return row ? toVideoTask(row) : undefined;
  }

  async findByExternalId(externalId: string, keyId: string, surface: VideoSurface): Promise<VideoTask | undefined> {
    const row = await this.db
      .selectFrom('video_tasks')
      .selectAll()
      .where('external_id', '=', externalId)
      .where('key_id', '=', keyId)
      .where('surface', '=', surface)
      .executeTakeFirst();
    return row ? toVideoTask(row) : undefined;
  }

  /** A key's tasks of one capability, newest first (Kling's list endpoint), one page. */
  async listForKey(keyId: string, surface: VideoSurface, capability: string, page: { offset: number; limit: number }): Promise<VideoTask[]> {
    const rows = await this.db
      .selectFrom('video_tasks')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('surface', '=', surface)
      .where('capability', '=', capability)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return rows.map(toVideoTask);
  }

  async findById(id: string): Promise<VideoTask | undefined> {
    const row = await this.db.selectFrom('video_tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toVideoTask(row) : undefined;
  }

  /** Non-terminal tasks whose next poll is due and that nobody holds. */
  async findDue(surface: VideoSurface, now: number, limit: number): Promise<VideoTask[]> {
    const rows = await this.db
      .selectFrom('video_tasks')
      .selectAll()
      .where('surface', '=', surface)
      .where('status', 'in', ['queued', 'in_progress'])
      .where('next_poll_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_poll_at')
      .limit(limit)
      .execute();
    return rows.map(toVideoTask);
  }

  /** Takes the task's lease unless another poller holds an unexpired one. */
  async acquireLease(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('video_tasks')
      .set({ lease_owner: owner, lease_until: now + leaseMs })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'in_progress'])
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Extends a lease this owner still holds; false when it is no longer ours. */
  async renewLease(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const result = await this.db.updateTable('video_tasks').set({ lease_until: now + leaseMs }).where('id', '=', id).where('lease_owner', '=', owner).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Records a successful poll (with its change, if any) and gives the lease back; false when the lease was no longer ours. */
  async savePoll(id: string, owner: string, now: number, nextPollAt: number, change?: TaskChange, result?: VideoTaskResult): Promise<boolean> {
    const saved = await this.db
      .updateTable('video_tasks')
      .set({
        polled_at: now,
        poll_failures: 0,
        next_poll_at: nextPollAt,
        lease_owner: null,
        lease_until: null,
        ...(change ? changeColumns(change, now, result) : {}),
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(saved.numUpdatedRows) === 1;
  }

  /** Records a failed poll; `giveUp` ends the task as failed. Gives the lease back. */
  async saveFailedPoll(id: string, owner: string, now: number, nextPollAt: number, failures: number, giveUp?: VideoTaskFailure): Promise<void> {
    await this.db
      .updateTable('video_tasks')
      .set({
        polled_at: now,
        poll_failures: failures,
        next_poll_at: nextPollAt,
        lease_owner: null,
        lease_until: null,
        ...(giveUp ? changeColumns({ status: 'failed', progress: 0, error: giveUp }, now) : {}),
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * Claims the task's charge: true for exactly one caller, whichever instance or poll gets there
   * first (the conditional UPDATE is atomic on both stores). Only completed tasks are charged.
   */
  async markCharged(id: string): Promise<boolean> {
    const result = await this.db.updateTable('video_tasks').set({ charged: 1 }).where('id', '=', id).where('status', '=', 'completed').where('charged', '=', 0).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    await this.db.updateTable('video_tasks').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
  }
}

function changeColumns(change: TaskChange, now: number, result?: VideoTaskResult): Partial<VideoTaskTable> {
  const isFinished = change.status === 'completed' || change.status === 'failed';
  return {
    status: change.status,
    ...(change.status === 'failed' ? {} : { progress: change.progress }),
    updated_at: now,
    ...(result ? { result: JSON.stringify(result) } : {}),
    ...(change.error ? { error_code: change.error.code, error_message: change.error.message } : {}),
    ...(isFinished ? { completed_at: now } : {}),
  };
}

function toVideoTask(row: Selectable<VideoTaskTable>): VideoTask {
  return {
    id: row.id,
    keyId: row.key_id,
    surface: row.surface as VideoSurface,
    capability: row.capability,
    model: row.model,
    channel: row.channel,
    upstreamId: row.upstream_id,
    status: row.status as VideoTaskStatus,
    progress: row.progress,
    request: JSON.parse(row.request) as unknown,
    result: row.result ? (JSON.parse(row.result) as VideoTaskResult) : undefined,
    error: row.error_code ? ({ code: row.error_code, message: row.error_message ?? '' } as VideoTaskFailure) : undefined,
    externalId: row.external_id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    completedAt: row.completed_at === null ? null : Number(row.completed_at),
    polledAt: row.polled_at === null ? null : Number(row.polled_at),
    pollFailures: row.poll_failures,
  };
}
