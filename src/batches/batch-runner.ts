import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { FileStore } from '../files/file-store.js';
import type { BatchEndpoint } from '../contracts/batch-line.js';
import { BatchRepo, type BatchLineRow, type NewBatchLine } from './batch-repo.js';
import { newLineRequestId, OPEN_STATUSES, type BatchRow } from './batch.js';
import type { BatchSettings } from './batch-settings.js';
import { validateInput } from './validate-input.js';
import { runLine } from './run-line.js';
import { writeOutputFiles } from './output-files.js';
import { cancelNativeLines, pollNativeLines, submitNativeLines } from './native-lines.js';

const DUE_PER_TICK = 16;
const INSERT_CHUNK = 200;

/**
 * Drives batches (issue 46) in the background: validates the input file, runs the lines at most
 * `linesInFlight` at a time through the gateway's own endpoint (batches/run-line.ts), writes the
 * output and error files, and moves the status machine. A lease on the batch row (like video
 * tasks' poller) makes one driver per batch across instances; a dead instance's batch moves on
 * once its lease lapses. Every line's state is in the database before and after it runs.
 */
export class BatchRunner {
  readonly repo: BatchRepo;
  /** Unique per runner; host and pid tell an operator which instance holds a batch. */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  private readonly stopping = new AbortController();
  private readonly driving = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly files: () => FileStore | undefined,
    private readonly settings: BatchSettings,
  ) {
    this.repo = new BatchRepo(app.gateway.db);
  }

  start(): void {
    if (this.stopping.signal.aborted || this.timer) return;
    this.schedule();
  }

  /**
   * No new line starts; lines in flight finish (their outcome is stored), lines waiting on a rate
   * limit go back to pending; the leases are given back, so the next start (or another instance)
   * picks the batches up where they are.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.current;
    await Promise.allSettled(this.driving.values());
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.current = this.tick().finally(() => {
        this.current = undefined;
        if (!this.stopping.signal.aborted) this.schedule();
      });
    }, this.settings.tickMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const now = this.app.gateway.now();
      for (const { id } of await this.repo.findDue(now, DUE_PER_TICK)) {
        if (this.driving.has(id) || this.stopping.signal.aborted) continue;
        if (!(await this.repo.acquireLease(id, this.owner, now, this.settings.leaseMs))) continue;
        this.driving.set(id, this.drive(id).finally(() => this.driving.delete(id)));
      }
    } catch (error) {
      if (!this.stopping.signal.aborted) this.app.log.error({ err: error }, 'batch loop failed');
    }
  }

  /** Moves one batch through its states while this runner holds its lease. */
  private async drive(id: string): Promise<void> {
    const lease = this.holdLease(id);
    let failed = false;
    try {
      await this.repo.requeueRunning(id);
      for (;;) {
        if (lease.signal.aborted) return;
        const batch = await this.repo.find(id);
        if (!batch || !(OPEN_STATUSES as readonly string[]).includes(batch.status)) return;
        if (batch.status === 'validating') await this.validate(batch, lease.signal);
        else if (batch.status === 'in_progress') await this.runLines(batch, lease.signal);
        else await this.finish(batch, batch.status === 'cancelling' ? 'cancelled' : 'completed', lease.signal);
      }
    } catch (error) {
      // Left as it is, and its lease kept until it lapses: it is tried again then (here or on another instance), not every tick.
      failed = !this.stopping.signal.aborted;
      if (failed) this.app.log.error({ err: error, batch: id }, 'batch step failed');
    } finally {
      lease.release();
      if (!failed) await this.repo.releaseLease(id, this.owner).catch(() => undefined);
    }
  }

  /** Reads the input file line by line: every problem fails the batch (nothing runs, nothing is billed); else its lines are stored and it starts. */
  private async validate(batch: BatchRow, signal: AbortSignal): Promise<void> {
    const { catalog, now } = this.app.gateway;
    const content = await this.files()?.open(batch.key_id, batch.input_file_id);
    if (!content) {
      await this.repo.fail(batch.id, [{ code: 'file_not_found', message: `The input file ${batch.input_file_id} no longer exists.`, param: 'input_file_id', line: null }], now());
      return;
    }
    await this.repo.clearLines(batch.id);
    let chunk: NewBatchLine[] = [];
    let total = 0;
    const errors = await validateInput(content, {
      endpoint: batch.endpoint as BatchEndpoint,
      isServed: (model) => catalog.isServed(model),
      onLine: async (line) => {
        total += 1;
        chunk.push({ line: line.line, request_id: newLineRequestId(), custom_id: line.customId, model: line.model, body: JSON.stringify(line.body) });
        if (chunk.length < INSERT_CHUNK) return;
        await this.repo.insertLines(batch.id, chunk);
        chunk = [];
      },
    });
    if (signal.aborted) return;
    if (errors.length > 0) return this.repo.fail(batch.id, errors, now());
    await this.repo.insertLines(batch.id, chunk);
    await this.repo.transition(batch.id, ['validating'], 'in_progress', now(), { total });
  }

  /**
   * Runs pending lines, at most `linesInFlight` at once, until none is left, the batch is
   * cancelled, its window passes, or the runner stops. Lines of channels with a vendor batch API
   * go upstream as one batch each (batches/native-lines.ts) and are polled meanwhile.
   */
  private async runLines(batch: BatchRow, signal: AbortSignal): Promise<void> {
    const { now } = this.app.gateway;
    await submitNativeLines(this.app.gateway, this.repo, batch, signal);
    const halt = new AbortController();
    const lineSignal = AbortSignal.any([signal, halt.signal]);
    const inFlight = new Set<Promise<void>>();
    const wait = () => Promise.race([...inFlight, sleep(this.settings.tickMs, undefined, { signal }).catch(() => undefined)]);
    for (;;) {
      if (signal.aborted || now() >= Number(batch.expires_at)) break;
      if ((await this.repo.find(batch.id))?.status !== 'in_progress') break;
      if (inFlight.size >= this.settings.linesInFlight) {
        await wait();
        continue;
      }
      const line = await this.repo.claimNext(batch.id);
      if (line === null) break;
      if (line === undefined) {
        if (inFlight.size > 0 || !(await pollNativeLines(this.app.gateway, this.repo, batch, signal))) {
          await wait();
          continue;
        }
        break;
      }
      const run: Promise<void> = this.runOne(batch, line, lineSignal).finally(() => inFlight.delete(run));
      inFlight.add(run);
    }
    // Lines in flight finish; those waiting on a rate limit go back to pending.
    halt.abort();
    await Promise.allSettled(inFlight);
    if (signal.aborted) return;
    const fresh = await this.repo.find(batch.id);
    if (fresh?.status !== 'in_progress') return;
    const unfinished = await this.repo.countUnfinished(batch.id);
    if (unfinished > 0 && now() >= Number(fresh.expires_at)) return this.finish(fresh, 'expired', signal);
    if (unfinished === 0) await this.repo.transition(batch.id, ['in_progress'], 'finalizing', now());
  }

  /** One line to its end; a rate limit makes it wait and try again, never fail. */
  private async runOne(batch: BatchRow, line: BatchLineRow, signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) return this.repo.unclaim(batch.id, line.line);
      let run: Awaited<ReturnType<typeof runLine>>;
      try {
        run = await runLine(this.app, batch, line);
      } catch (error) {
        this.app.log.error({ err: error, batch: batch.id, line: line.line }, 'batch line failed in the gateway');
        const outcome = { id: line.request_id, custom_id: line.custom_id, response: null, error: { code: 'server_error', message: 'The gateway failed to run this request.' } };
        await this.repo.finishLine(batch.id, line.line, 'failed', outcome, undefined);
        return;
      }
      if (run.kind === 'answered') {
        await this.repo.finishLine(batch.id, line.line, run.ok ? 'done' : 'failed', run.outcome, run.report);
        return;
      }
      if (run.kind === 'not-run') return this.repo.unclaim(batch.id, line.line);
      await sleep(Math.min(run.waitMs, this.settings.retryWaitMaxMs), undefined, { signal }).catch(() => undefined);
    }
  }

  /** Writes the output and error files (lines that never ran go to the error file) and ends the batch. */
  private async finish(batch: BatchRow, terminal: 'completed' | 'cancelled' | 'expired', signal: AbortSignal): Promise<void> {
    const files = this.files();
    if (!files) throw new Error('No file store: the batch output cannot be written');
    if (terminal !== 'completed') {
      await cancelNativeLines(this.app.gateway, this.repo, batch, signal);
      await this.repo.cancelUnfinished(batch.id);
    }
    const written = await writeOutputFiles(files, this.repo, batch, terminal === 'expired' ? 'batch_expired' : 'batch_cancelled');
    const from = terminal === 'completed' ? 'finalizing' : terminal === 'cancelled' ? 'cancelling' : 'in_progress';
    // A batch cancelled while it was validating never counted its lines: its files list them all.
    const total = Number(batch.total) > 0 ? Number(batch.total) : await this.repo.countLines(batch.id);
    await this.repo.transition(batch.id, [from], terminal, this.app.gateway.now(), { output_file_id: written.outputFileId, error_file_id: written.errorFileId, total });
  }

  /** Renews the batch's lease while it is driven; the signal aborts when the runner stops or the lease was lost. */
  private holdLease(id: string): { signal: AbortSignal; release: () => void } {
    const lost = new AbortController();
    const renew = (): void => {
      this.repo.renewLease(id, this.owner, this.app.gateway.now(), this.settings.leaseMs).then(
        (held) => (held ? undefined : lost.abort()),
        () => undefined,
      );
    };
    const timer = setInterval(renew, Math.max(10, Math.floor(this.settings.leaseMs / 3)));
    timer.unref();
    return { signal: AbortSignal.any([this.stopping.signal, lost.signal]), release: () => clearInterval(timer) };
  }
}
