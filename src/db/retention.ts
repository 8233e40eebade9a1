import { sql } from 'kysely';
import { sqliteHandleOf, type Db } from './connect.js';
import { dialectOf } from './dialect.js';

export interface RetentionOptions {
  /** Events and request details older than this (epoch ms) are deleted; rollups stay. */
  cutoff: () => number;
  /** Rows per DELETE: each is a short write, so requests are served between them. */
  chunkRows?: number;
  /** Pause between two chunks (and two vacuum steps). */
  pauseMs?: number;
  /** Pages given back per incremental-vacuum step (SQLite). */
  vacuumPages?: number;
  /** First run this long after `start()` (the server listens first), then every `everyMs`. */
  startAfterMs?: number;
  everyMs?: number;
  onError?: (error: unknown) => void;
}

export interface RetentionRun {
  events: number;
  details: number;
  /** SQLite pages given back to the file system (0 where the file is not in incremental auto-vacuum). */
  pagesFreed: number;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Retention for the raw rows (issue 22): usage events and request details older than the window
 * are deleted a chunk at a time, in the background after the server listens, and on SQLite the
 * freed pages are given back to the file system a step at a time (incremental vacuum). Nothing
 * here holds the event loop longer than one chunk, however much history there is. The rollups
 * are kept: reports, budgets and the keys list read them, not the events.
 */
export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionRun> | undefined;
  private stopping = false;
  private readonly chunkRows: number;
  private readonly pauseMs: number;

  constructor(
    private readonly db: Db,
    private readonly options: RetentionOptions,
  ) {
    this.chunkRows = options.chunkRows ?? 1_000;
    this.pauseMs = options.pauseMs ?? 10;
  }

  start(): void {
    const every = this.options.everyMs ?? 3_600_000;
    const next = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.run()
          .catch((error: unknown) => this.options.onError?.(error))
          .finally(() => !this.stopping && next(every));
      }, delay);
      this.timer.unref();
    };
    next(this.options.startAfterMs ?? 30_000);
  }

  /** One pass; a pass already under way is joined, not doubled. */
  run(): Promise<RetentionRun> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<RetentionRun> {
    const cutoff = this.options.cutoff();
    const events = await this.inChunks(() => this.deleteEvents(cutoff));
    const details = await this.inChunks(() => this.deleteDetails(cutoff));
    const pagesFreed = await this.vacuum();
    return { events, details, pagesFreed };
  }

  private async inChunks(deleteChunk: () => Promise<number>): Promise<number> {
    let total = 0;
    while (!this.stopping) {
      const deleted = await deleteChunk();
      total += deleted;
      if (deleted < this.chunkRows) break;
      await wait(this.pauseMs);
    }
    return total;
  }

  private async deleteEvents(cutoff: number): Promise<number> {
    const result = await this.db
      .deleteFrom('usage_events')
      .where('id', 'in', (sub) => sub.selectFrom('usage_events').select('id').where('created_at', '<', cutoff).orderBy('created_at').limit(this.chunkRows))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** request_details has no key of its own: SQLite's rowid, PostgreSQL's ctid name its rows. */
  private async deleteDetails(cutoff: number): Promise<number> {
    const limit = sql.lit(this.chunkRows);
    const result =
      dialectOf(this.db) === 'postgres'
        ? await sql`delete from request_details where ctid = any(array(select ctid from request_details where created_at < ${cutoff} limit ${limit}))`.execute(this.db)
        : await sql`delete from request_details where rowid in (select rowid from request_details where created_at < ${cutoff} limit ${limit})`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  /**
   * SQLite files made since issue 22 are in incremental auto-vacuum: free pages go back to the file
   * system here, a step at a time. Older files keep their free pages for new rows (the file stops
   * growing) until a one-time VACUUM converts them (docs/deployment.md). PostgreSQL's autovacuum
   * makes deleted rows' space reusable on its own.
   */
  private async vacuum(): Promise<number> {
    const sqlite = sqliteHandleOf(this.db);
    if (!sqlite || sqlite.pragma('auto_vacuum', { simple: true }) !== 2) return 0;
    const pages = this.options.vacuumPages ?? 256;
    let freed = 0;
    while (!this.stopping) {
      const free = sqlite.pragma('freelist_count', { simple: true }) as number;
      if (free === 0) break;
      sqlite.pragma(`incremental_vacuum(${Math.min(free, pages)})`);
      freed += Math.min(free, pages);
      await wait(this.pauseMs);
    }
    return freed;
  }

  /** Stops the timer and any pass between two chunks. */
  async close(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
