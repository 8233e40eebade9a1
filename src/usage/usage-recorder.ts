import type { Insertable } from 'kysely';
import { BatchInsert } from '../db/batch-insert.js';
import { OneWriteAtATime } from '../db/one-write-at-a-time.js';
import type { Db } from '../db/connect.js';
import type { UsageEventTable } from '../db/schema.js';
import type { UsageJournal } from './usage-journal.js';

export type UsageEvent = Insertable<UsageEventTable>;

/** Every column an event writes, in one fixed order (the id is generated). */
const COLUMNS = [
  'request_id', 'key_id', 'model', 'channel', 'family', 'status', 'outcome', 'prompt_tokens', 'completion_tokens',
  'reasoning_tokens', 'images', 'video_seconds', 'cost_usd', 'latency_ms', 'ttft_ms', 'created_at',
  'cached_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'image_input_tokens', 'image_output_tokens', 'billed_price',
] as const satisfies ReadonlyArray<keyof UsageEvent>;
/** The billed parts an event may leave out (issue 21): none of them. */
const ZERO_PARTS = { cached_tokens: 0, cache_write_5m_tokens: 0, cache_write_1h_tokens: 0, image_input_tokens: 0, image_output_tokens: 0 };

export interface UsageRecorderOptions {
  /** Flush when this many events are waiting. */
  batchSize?: number;
  /** Flush at least this often. */
  intervalMs?: number;
  onError?: (error: unknown) => void;
  /** Appends each event before it is queued, so a crash loses nothing (replayed at start-up). */
  journal?: UsageJournal;
}

/**
 * Collects usage events in memory and writes them in batches, off the request path. Events are
 * never dropped on a failed write: they go back to the front of the queue for the next flush.
 */
export class UsageRecorder {
  private queue: UsageEvent[] = [];
  private readonly listeners = new Set<(event: UsageEvent) => void>();
  private readonly writes = new OneWriteAtATime();
  private readonly timer: NodeJS.Timeout;
  private readonly batchSize: number;
  private readonly insert: BatchInsert<'usage_events'>;

  constructor(
    private readonly db: Db,
    private readonly options: UsageRecorderOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? 1000);
    this.timer.unref();
    this.insert = new BatchInsert(db, 'usage_events', COLUMNS, ZERO_PARTS);
  }

  /**
   * Journals the event before the response carrying it is sent (`then` runs once it is written):
   * a crash after the client got its answer cannot lose its usage. `record` follows at the end
   * with `journaled` set, and the journal is not written twice.
   */
  journalAhead(event: UsageEvent, then: () => void): boolean {
    if (!this.options.journal) return false;
    this.options.journal.appendThen(event, then);
    return true;
  }

  record(event: UsageEvent, journaled = false): void {
    if (!journaled) this.options.journal?.append(event);
    this.queue.push(event);
    for (const listener of this.listeners) listener(event);
    if (this.queue.length >= this.batchSize) void this.flush();
  }

  /** Events waiting for the next batch (a backlog means the database is slow or down). */
  get queued(): number {
    return this.queue.length;
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
  flush(): Promise<void> {
    return this.writes.run(() => this.queue.length > 0, () => this.writeQueued());
  }

  /**
   * Writes the events queued when it starts (later ones wait for the next flush). With a journal,
   * the segments holding them are deleted once all are stored; after a failure they stay, and a
   * replay skips the events the database already has.
   */
  private async writeQueued(): Promise<void> {
    const journaled = this.options.journal?.rotate();
    let remaining = this.queue.length;
    while (remaining > 0) {
      const batch = this.queue.splice(0, Math.min(this.batchSize, remaining));
      try {
        await this.write(batch);
      } catch (error) {
        this.queue = batch.concat(this.queue);
        this.options.onError?.(error);
        return;
      }
      remaining -= batch.length;
    }
    if (journaled !== undefined) this.options.journal!.dropThrough(journaled);
  }

  /** One INSERT of at most `batchSize` events. */
  async write(batch: readonly UsageEvent[]): Promise<void> {
    await this.insert.write(batch);
  }

  /**
   * Stores events a crashed process journaled but never wrote, skipping those the database has
   * (same request id): a flush that failed half-way leaves its stored batches journaled. A request
   * id journaled twice keeps its last event.
   */
  async replay(journaled: readonly UsageEvent[]): Promise<number> {
    const events = [...new Map(journaled.map((event) => [event.request_id, event])).values()];
    let stored = 0;
    for (let at = 0; at < events.length; at += this.batchSize) {
      const chunk = events.slice(at, at + this.batchSize);
      const present = await this.db
        .selectFrom('usage_events')
        .select('request_id')
        .where('request_id', 'in', chunk.map((event) => event.request_id))
        .execute();
      const seen = new Set(present.map((row) => row.request_id));
      const missing = chunk.filter((event) => !seen.has(event.request_id));
      if (missing.length > 0) await this.write(missing);
      stored += missing.length;
    }
    return stored;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    // Everything written: the journal folder goes; anything left stays for the next start.
    this.options.journal?.close(this.queue.length === 0);
  }
}
