import { CompiledQuery, type Insertable } from 'kysely';
import { sqliteHandleOf, type Db } from '../db/connect.js';
import type { UsageEventTable } from '../db/schema.js';

export type UsageEvent = Insertable<UsageEventTable>;

/** Every column an event writes, in one fixed order (the id is generated). */
const COLUMNS = [
  'request_id', 'key_id', 'model', 'channel', 'family', 'status', 'outcome', 'prompt_tokens', 'completion_tokens',
  'reasoning_tokens', 'images', 'video_seconds', 'cost_usd', 'latency_ms', 'ttft_ms', 'created_at',
] as const satisfies ReadonlyArray<keyof UsageEvent>;

export interface UsageRecorderOptions {
  /** Flush when this many events are waiting. */
  batchSize?: number;
  /** Flush at least this often. */
  intervalMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Collects usage events in memory and writes them in batches, off the request path. Events are
 * never dropped on a failed write: they go back to the front of the queue for the next flush.
 */
export class UsageRecorder {
  private queue: UsageEvent[] = [];
  private readonly listeners = new Set<(event: UsageEvent) => void>();
  private flushing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly batchSize: number;
  /** INSERT text per row count, compiled once by Kysely for the dialect in use. */
  private readonly insertSql = new Map<number, string>();
  /** Embedded SQLite: the batch as one transaction of a once-prepared single-row insert. */
  private readonly writeSqlite: ((rows: unknown[][]) => void) | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: UsageRecorderOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? 1000);
    this.timer.unref();
    const sqlite = sqliteHandleOf(db);
    if (sqlite) {
      const insert = sqlite.prepare(this.sqlFor(1));
      this.writeSqlite = sqlite.transaction((rows: unknown[][]) => {
        for (const row of rows) insert.run(row);
      });
    }
  }

  record(event: UsageEvent): void {
    this.queue.push(event);
    for (const listener of this.listeners) listener(event);
    if (this.queue.length >= this.batchSize) void this.flush();
  }

  /** Sees every event as it is recorded (budgets count spend before the batch is written). */
  subscribe(listener: (event: UsageEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Writes everything queued so far, at most `batchSize` events per INSERT (databases cap the
   * parameters of one statement, so a backlog after an outage must not become one huge insert).
   * Concurrent calls share one write; a failed write puts its events back and stops.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.writeQueued().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      try {
        if (this.writeSqlite) this.writeSqlite(batch.map((event) => COLUMNS.map((c) => event[c] ?? null)));
        else await this.db.executeQuery(CompiledQuery.raw(this.sqlFor(batch.length), batch.flatMap((event) => COLUMNS.map((c) => event[c] ?? null))));
      } catch (error) {
        this.queue = batch.concat(this.queue);
        this.options.onError?.(error);
        return;
      }
    }
  }

  private sqlFor(rows: number): string {
    let text = this.insertSql.get(rows);
    if (!text) {
      const placeholder = Object.fromEntries(COLUMNS.map((c) => [c, null])) as unknown as UsageEvent;
      text = this.db.insertInto('usage_events').values(Array.from({ length: rows }, () => placeholder)).compile().sql;
      this.insertSql.set(rows, text);
    }
    return text;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
