import type { Db } from '../db/connect.js';
import type { UsageEventTable } from '../db/schema.js';
import type { Insertable } from 'kysely';

export type UsageEvent = Insertable<UsageEventTable>;

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

  constructor(
    private readonly db: Db,
    private readonly options: UsageRecorderOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? 1000);
    this.timer.unref();
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

  /** Writes everything queued so far; concurrent calls share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.db
      .insertInto('usage_events')
      .values(batch)
      .execute()
      .then(
        () => undefined,
        (error: unknown) => {
          this.queue = batch.concat(this.queue);
          this.options.onError?.(error);
        },
      )
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
