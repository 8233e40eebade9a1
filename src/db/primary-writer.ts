import type { Worker } from 'node:cluster';
import { BatchReplies, type BatchError, type BatchWriter, type SqliteWriter } from './sqlite-writer.js';

/**
 * GATEWAY_WORKERS on the embedded store (issue 36, memory): one writer thread for the whole
 * cluster, in the primary, instead of one per worker. A writer thread is a V8 isolate with its own
 * SQLite connection (~10 MiB each, bench/memory/writer-thread.js); the workers write one file anyway, and
 * SQLite commits one writer at a time, so N threads only waited for each other's lock.
 *
 * A worker posts each batch to the primary over the cluster's channel (JSON: the rows are numbers,
 * strings and nulls) and awaits its commit there: its request thread never waits on SQLite, as
 * with a thread of its own. Batches of one worker commit in the order it posted them (one channel,
 * one queue at the primary). What fails (a full disk, a lock held too long, the primary gone)
 * rejects the batch as before: its writer keeps it (journaled) and tries again.
 */

/** Worker → primary: one batch (db/sqlite-writer.ts's `write`). */
interface WriteAsk {
  gwWrite: number;
  insertSql: string;
  afterSql: string | undefined;
  rows: unknown[][];
}
/** Primary → worker: the batch committed, or the error it failed with. */
interface WriteReply {
  gwWriteReply: number;
  error?: BatchError;
}

/** Per process, not per client: every client of the channel sees every reply, and takes only its own ids. */
let nextId = 0;

/** A worker's writer: its batches commit on the primary's writer thread. */
export class PrimaryWriterClient implements BatchWriter {
  private readonly replies = new BatchReplies();
  private closed = false;

  constructor(private readonly channel: NodeJS.Process = process) {
    channel.on('message', (message: Partial<WriteReply>) => {
      if (typeof message?.gwWriteReply === 'number') this.replies.settle(message.gwWriteReply, message.error);
    });
    // The primary is gone: nothing will answer; the batches stay with their writers (journaled).
    channel.on('disconnect', () => this.replies.failAll(new Error('the primary process is gone: its SQLite writer cannot answer')));
  }

  write(insertSql: string, afterSql: string | undefined, rows: unknown[][]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the SQLite writer is closed'));
    if (!this.channel.connected || !this.channel.send) return Promise.reject(new Error('the primary process is gone: its SQLite writer cannot answer'));
    const id = ++nextId;
    const ask: WriteAsk = { gwWrite: id, insertSql, afterSql, rows };
    return this.replies.expect(id, (reject) => {
      this.channel.send!(ask, undefined, undefined, (error: Error | null) => {
        if (error) reject(error);
      });
    });
  }

  get waiting(): number {
    return this.replies.waiting;
  }

  /** Waits for every batch posted so far to be answered (the primary outlives its workers' stops). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.replies.drained();
  }
}

/** In the primary: commits a worker's batch on `writer` and answers it; false for any other message. */
export function serveWorkerWrites(worker: Pick<Worker, 'send' | 'isConnected'>, message: unknown, writer: SqliteWriter): boolean {
  const ask = message as Partial<WriteAsk> | undefined;
  if (typeof ask?.gwWrite !== 'number') return false;
  const id = ask.gwWrite;
  const answer = (reply: WriteReply) => {
    // A worker that died meanwhile: the batch commits all the same; nobody waits for the answer.
    if (worker.isConnected()) worker.send(reply, undefined, () => undefined);
  };
  writer.write(ask.insertSql!, ask.afterSql, ask.rows!).then(
    () => answer({ gwWriteReply: id }),
    (error: Error & { code?: string }) => answer({ gwWriteReply: id, error: { message: error.message, ...(error.code ? { code: error.code } : {}) } }),
  );
  return true;
}
