import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../db/connect.js';
import type { BatchLineTable, BatchTable } from '../db/schema.js';
import type { BatchLineReport } from '../plugins/batch-line-mark.js';
import { OPEN_STATUSES, type BatchError, type BatchRow, type BatchStatus, type LineState, type OutputLine } from './batch.js';

export type BatchLineRow = Selectable<BatchLineTable>;
export type NewBatchLine = Pick<BatchLineRow, 'line' | 'request_id' | 'custom_id' | 'model' | 'body'>;

/** Which timestamp column each state sets when a batch enters it. */
const ENTERED_AT = {
  in_progress: 'in_progress_at',
  finalizing: 'finalizing_at',
  completed: 'completed_at',
  failed: 'failed_at',
  expired: 'expired_at',
  cancelling: 'cancelling_at',
  cancelled: 'cancelled_at',
} as const satisfies Partial<Record<BatchStatus, keyof BatchTable>>;

/** Kysely access to `batches` and `batch_lines` (issue 46). Writes that drive a batch require its lease. */
export class BatchRepo {
  constructor(private readonly db: Db) {}

  /** A new batch, `validating`, nothing counted yet. */
  async insert(row: Pick<BatchRow, 'id' | 'key_id' | 'endpoint' | 'input_file_id' | 'completion_window' | 'created_at' | 'expires_at' | 'output_expires_after' | 'metadata'>): Promise<void> {
    const blank = { in_progress_at: null, finalizing_at: null, completed_at: null, failed_at: null, expired_at: null, cancelling_at: null, cancelled_at: null, output_file_id: null, error_file_id: null, errors: null, lease_owner: null, lease_until: null };
    const zero = { total: 0, completed: 0, failed: 0, input_tokens: 0, cached_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cost_usd: 0 };
    await this.db.insertInto('batches').values({ ...row, ...blank, ...zero, status: 'validating' }).execute();
  }

  find(id: string): Promise<BatchRow | undefined> {
    return this.db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Another key's batch reads as absent. */
  findForKey(id: string, keyId: string): Promise<BatchRow | undefined> {
    return this.db.selectFrom('batches').selectAll().where('id', '=', id).where('key_id', '=', keyId).executeTakeFirst();
  }

  /** Newest first; `after`: the page starts past that batch (ids sort by age). One more row than asked tells `has_more`. */
  async list(keyId: string, after: string | undefined, limit: number): Promise<{ data: BatchRow[]; hasMore: boolean }> {
    let query = this.db.selectFrom('batches').selectAll().where('key_id', '=', keyId);
    if (after) query = query.where('id', '<', after);
    const rows = await query.orderBy('id', 'desc').limit(limit + 1).execute();
    return { data: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /** Open batches whose lease is free or lapsed, oldest first. */
  findDue(now: number, limit: number): Promise<Array<Pick<BatchRow, 'id'>>> {
    return this.db
      .selectFrom('batches')
      .select('id')
      .where('status', 'in', OPEN_STATUSES)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async acquireLease(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('batches')
      .set({ lease_owner: owner, lease_until: now + leaseMs })
      .where('id', '=', id)
      .where('status', 'in', OPEN_STATUSES)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async renewLease(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const result = await this.db.updateTable('batches').set({ lease_until: now + leaseMs }).where('id', '=', id).where('lease_owner', '=', owner).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    await this.db.updateTable('batches').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
  }

  /** Moves the batch from one of `from` to `to`, stamping the time it entered `to`; false when it was in none of them. */
  async transition(id: string, from: readonly BatchStatus[], to: BatchStatus, now: number, extra: Partial<Insertable<BatchTable>> = {}): Promise<boolean> {
    const stamp = to in ENTERED_AT ? { [ENTERED_AT[to as keyof typeof ENTERED_AT]]: now } : {};
    const result = await this.db
      .updateTable('batches')
      .set({ ...extra, ...stamp, status: to })
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async fail(id: string, errors: readonly BatchError[], now: number): Promise<void> {
    await this.db.deleteFrom('batch_lines').where('batch_id', '=', id).execute();
    await this.transition(id, ['validating'], 'failed', now, { errors: JSON.stringify(errors) });
  }

  /** A validation that did not finish (its instance died) starts again from an empty list of lines. */
  async clearLines(id: string): Promise<void> {
    await this.db.deleteFrom('batch_lines').where('batch_id', '=', id).execute();
  }

  async insertLines(batchId: string, lines: readonly NewBatchLine[]): Promise<void> {
    if (lines.length === 0) return;
    await this.db
      .insertInto('batch_lines')
      .values(lines.map((line) => ({ ...line, batch_id: batchId, state: 'pending', outcome: null, channel: null, upstream_id: null, cost_usd: 0 })))
      .execute();
  }

  /**
   * Lines left `running` by an instance that stopped without recording their outcome go back to
   * `pending` (the caller holds the batch's lease, so no one else runs them): a line with an
   * outcome is never sent again; one without may have reached the upstream before a crash.
   */
  async requeueRunning(batchId: string): Promise<void> {
    await this.db.updateTable('batch_lines').set({ state: 'pending' }).where('batch_id', '=', batchId).where('state', '=', 'running').where('outcome', 'is', null).where('upstream_id', 'is', null).execute();
  }

  /**
   * The next pending line, marked `running` in one statement that also checks the batch is still
   * in progress: once a cancel is stored, no line starts. Undefined: none pending; null: the batch
   * is no longer in progress.
   */
  async claimNext(batchId: string): Promise<BatchLineRow | undefined | null> {
    for (;;) {
      const next = await this.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).where('state', '=', 'pending').orderBy('line').limit(1).executeTakeFirst();
      if (!next) return undefined;
      const claimed = await this.db
        .updateTable('batch_lines')
        .set({ state: 'running' })
        .where('batch_id', '=', batchId)
        .where('line', '=', next.line)
        .where('state', '=', 'pending')
        .where(({ exists, selectFrom }) => exists(selectFrom('batches').select('id').where('id', '=', batchId).where('status', '=', 'in_progress')))
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) > 0) return { ...next, state: 'running' };
      const batch = await this.find(batchId);
      if (batch?.status !== 'in_progress') return null;
    }
  }

  /** A claimed line that did not run (the gateway is stopping, the batch halted) waits for the next claim. */
  async unclaim(batchId: string, line: number): Promise<void> {
    await this.db.updateTable('batch_lines').set({ state: 'pending' }).where('batch_id', '=', batchId).where('line', '=', line).where('state', '=', 'running').execute();
  }

  /**
   * The line's outcome and its batch's counts, usage and cost in one transaction, only while the
   * line is `running`: it ends once, and an ended line is never sent again.
   */
  async finishLine(batchId: string, line: number, state: Extract<LineState, 'done' | 'failed'>, outcome: OutputLine, report: BatchLineReport | undefined): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const ended = await trx
        .updateTable('batch_lines')
        .set({ state, outcome: JSON.stringify(outcome), channel: report?.channel ?? null, cost_usd: report?.costUsd ?? 0 })
        .where('batch_id', '=', batchId)
        .where('line', '=', line)
        .where('state', '=', 'running')
        .executeTakeFirst();
      if (Number(ended.numUpdatedRows) === 0) return false;
      await trx
        .updateTable('batches')
        .set({
          completed: sql`completed + ${state === 'done' ? 1 : 0}`,
          failed: sql`failed + ${state === 'failed' ? 1 : 0}`,
          input_tokens: sql`input_tokens + ${report?.promptTokens ?? 0}`,
          cached_tokens: sql`cached_tokens + ${report?.cachedTokens ?? 0}`,
          output_tokens: sql`output_tokens + ${report?.completionTokens ?? 0}`,
          reasoning_tokens: sql`reasoning_tokens + ${report?.reasoningTokens ?? 0}`,
          cost_usd: sql`cost_usd + ${report?.costUsd ?? 0}`,
        })
        .where('id', '=', batchId)
        .execute();
      return true;
    });
  }

  /** Lines that will not run now (a cancel or the window's end): they go to the error file. */
  async cancelUnfinished(batchId: string): Promise<void> {
    await this.db.updateTable('batch_lines').set({ state: 'cancelled' }).where('batch_id', '=', batchId).where('state', 'in', ['pending', 'running']).execute();
  }

  async countLines(batchId: string): Promise<number> {
    const row = await this.db.selectFrom('batch_lines').select((eb) => eb.fn.countAll<number>().as('n')).where('batch_id', '=', batchId).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async countUnfinished(batchId: string): Promise<number> {
    const row = await this.db.selectFrom('batch_lines').select((eb) => eb.fn.countAll<number>().as('n')).where('batch_id', '=', batchId).where('state', 'in', ['pending', 'running']).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** A page of ended lines in `states`, by line number after `afterLine`. */
  linesIn(batchId: string, states: readonly LineState[], afterLine: number, limit: number): Promise<BatchLineRow[]> {
    return this.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).where('state', 'in', states).where('line', '>', afterLine).orderBy('line').limit(limit).execute();
  }

  async hasLinesIn(batchId: string, states: readonly LineState[]): Promise<boolean> {
    return (await this.linesIn(batchId, states, 0, 1)).length > 0;
  }

  /** The vendor batches (channel, upstream id) of this batch with lines not yet ended. */
  async nativeRunning(batchId: string): Promise<Array<{ channel: string; upstream_id: string }>> {
    const rows = await this.db
      .selectFrom('batch_lines')
      .select(['channel', 'upstream_id'])
      .distinct()
      .where('batch_id', '=', batchId)
      .where('state', '=', 'running')
      .where('upstream_id', 'is not', null)
      .execute();
    return rows.map((row) => ({ channel: row.channel ?? '', upstream_id: row.upstream_id! }));
  }

  linesOfUpstream(batchId: string, upstreamId: string): Promise<BatchLineRow[]> {
    return this.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).where('upstream_id', '=', upstreamId).where('state', '=', 'running').execute();
  }

  /** Lines sent in a vendor's batch (batches/native-batch.ts): their upstream id, stored before they are polled. */
  async markNative(batchId: string, lines: readonly number[], channel: string, upstreamId: string): Promise<void> {
    if (lines.length === 0) return;
    await this.db.updateTable('batch_lines').set({ state: 'running', channel, upstream_id: upstreamId }).where('batch_id', '=', batchId).where('line', 'in', lines).where('state', '=', 'pending').execute();
  }
}
