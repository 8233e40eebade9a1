import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The embedded store's batch writes off the request thread (issue 36): better-sqlite3 runs a
 * transaction to its end on the thread that calls it, and when another process of a
 * GATEWAY_WORKERS cluster holds the write lock, SQLite's busy handler sleeps (1, 2, 5 … 100 ms)
 * on that thread: every connection of the process waited with it. Here the usage ledger's, the
 * rollups' and the request log's batches go to one worker thread per process, with a connection
 * of its own; the request thread posts the rows (plain arrays, one message per batch) and awaits
 * the commit without ever blocking. The worker's code is a string, so the same module runs from
 * dist/ and from the TypeScript sources under test (as db/sqlite-reader.ts).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
// Per connection: the same settings as the request thread's (db/connect.ts); WAL is the file's.
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('synchronous = NORMAL');
db.pragma('journal_size_limit = 67108864');
const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};
const writeBatch = db.transaction((insertSql, afterSql, rows) => {
  const insert = prepared(insertSql);
  let first = 0;
  let last = 0;
  for (const row of rows) {
    const result = insert.run(row);
    if (result.changes === 0) continue;
    last = Number(result.lastInsertRowid);
    first ||= last;
  }
  if (afterSql && last > 0) prepared(afterSql).run(first, last);
});
parentPort.on('message', ({ id, insertSql, afterSql, rows }) => {
  try {
    writeBatch(insertSql, afterSql, rows);
    parentPort.postMessage({ id });
  } catch (error) {
    // A table renamed or dropped under a statement: prepare again next time.
    statements.delete(insertSql);
    if (afterSql) statements.delete(afterSql);
    parentPort.postMessage({ id, error: { message: String((error && error.message) || error), code: error && error.code } });
  }
});
`;

/** Where the store's batches commit off the request thread: this process's writer thread, or the cluster primary's (db/primary-writer.ts). */
export interface BatchWriter {
  write(insertSql: string, afterSql: string | undefined, rows: unknown[][]): Promise<void>;
  /** Batches still waiting for their commit. */
  readonly waiting: number;
  /** Waits for every batch posted so far, then stops. */
  close(): Promise<void>;
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** A batch's failure as it crossed a thread or process boundary: its message and SQLite code. */
export interface BatchError {
  message: string;
  code?: string;
}

/**
 * The batches a writer posted and not yet heard back about, by id, for both writers (this
 * process's thread, the cluster primary's): each answer settles its batch, a writer that dies
 * fails them all, and a close waits for every one.
 */
export class BatchReplies {
  private readonly pending = new Map<number, Pending>();
  private readonly inFlight = new Set<Promise<void>>();

  /** The batch `id`'s outcome; `post` sends it (and may reject at once, e.g. a failed send). */
  expect(id: number, post: (reject: (error: Error) => void) => void): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      post((error) => {
        if (this.pending.delete(id)) reject(error);
      });
    });
    this.inFlight.add(written);
    const forget = () => void this.inFlight.delete(written);
    written.then(forget, forget);
    return written;
  }

  /** The answer to batch `id`; false when no such batch waits (another writer's id). */
  settle(id: number, error: BatchError | undefined): boolean {
    const pending = this.pending.get(id);
    if (!pending) return false;
    this.pending.delete(id);
    if (error) pending.reject(Object.assign(new Error(error.message), error.code ? { code: error.code } : {}));
    else pending.resolve();
    return true;
  }

  failAll(error: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const pending of waiting) pending.reject(error);
  }

  get waiting(): number {
    return this.pending.size;
  }

  /** Until every batch posted so far is answered. */
  async drained(): Promise<void> {
    await Promise.allSettled(this.inFlight);
  }
}

/**
 * One writer thread for a SQLite file; it starts with the first batch (a process that writes no
 * batch starts none) and is held (ref'd) only while a batch waits, so an idle writer never keeps
 * the process alive. Batches commit in the order they were posted: one thread, one queue.
 */
export class SqliteWriter implements BatchWriter {
  private worker: Worker | undefined;
  private readonly replies = new BatchReplies();
  private nextId = 0;
  private closed = false;
  private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3');

  constructor(
    private readonly file: string,
    /** How long a batch waits for another process's write lock before failing with SQLITE_BUSY (on this thread, not the request thread). */
    private readonly busyTimeoutMs = 5_000,
  ) {}

  /**
   * Inserts `rows` with `insertSql` (one row's statement, run per row) in one transaction, then runs
   * `afterSql` with the first and last rowid inserted (work that must commit with the rows: the
   * rollups). Rejects with the SQLite error (its `code` kept: SQLITE_FULL, SQLITE_BUSY …).
   */
  write(insertSql: string, afterSql: string | undefined, rows: unknown[][]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the SQLite writer is closed'));
    const worker = (this.worker ??= this.spawn());
    const id = ++this.nextId;
    return this.replies.expect(id, () => {
      worker.ref();
      worker.postMessage({ id, insertSql, afterSql, rows });
    });
  }

  /** Batches still waiting for their commit. */
  get waiting(): number {
    return this.replies.waiting;
  }

  /** Waits for every batch posted so far (they are not abandoned), then stops the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.replies.drained();
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver: this.driver, busyTimeoutMs: Math.max(0, Math.floor(this.busyTimeoutMs)) },
      // It holds one batch at a time: a small young generation keeps the thread's memory small in every process.
      resourceLimits: { maxYoungGenerationSizeMb: 2 },
    });
    worker.unref();
    worker.on('message', ({ id, error }: { id: number; error?: BatchError }) => {
      if (this.replies.settle(id, error) && this.replies.waiting === 0) worker.unref();
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      // A thread that died (it should not): its batches failed (their writers keep and retry them); the next batch starts a new one.
      this.worker = undefined;
      this.replies.failAll(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite writer thread stopped (${code})`)));
    return worker;
  }
}
