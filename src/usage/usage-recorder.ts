import { sql, type Insertable, type Kysely } from 'kysely';
import { BatchInsert } from '../db/batch-insert.js';
import { OneWriteAtATime } from '../db/one-write-at-a-time.js';
import { sqliteHandleOf, type Db } from '../db/connect.js';
import { sqliteRollupByIdSql } from '../db/usage-rollups.js';
import type { Database, UsageEventTable } from '../db/schema.js';
import type { UsageJournal } from './usage-journal.js';
import { newEntryId } from './entry-id.js';
import type { Usage } from '../contracts/usage.js';
import { relayedStreamUsage, type RelayedStream } from './partial-usage.js';

export type UsageEvent = Insertable<UsageEventTable>;

/** Any fixed 64-bit number: the advisory lock of a journal replay (PostgreSQL), 'gwreplay'. */
const REPLAY_LOCK = 0x6777_7265_706c_6179n;

/** Every column an event writes, in one fixed order (the id is generated). */
const COLUMNS = [
  'entry_id', 'request_id', 'key_id', 'model', 'channel', 'family', 'status', 'outcome', 'prompt_tokens', 'completion_tokens',
  'reasoning_tokens', 'images', 'video_seconds', 'cost_usd', 'latency_ms', 'ttft_ms', 'created_at', 'error_code',
  'cached_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'image_input_tokens', 'image_output_tokens', 'billed_price',
  'cache_hit', 'saved_cost_usd', 'batch_id',
] as const satisfies ReadonlyArray<keyof UsageEvent>;
/** The billed parts an event may leave out (issue 21): none of them. */
const ZERO_PARTS = { cached_tokens: 0, cache_write_5m_tokens: 0, cache_write_1h_tokens: 0, image_input_tokens: 0, image_output_tokens: 0, cache_hit: 0, saved_cost_usd: 0, batch_id: null };

export interface UsageRecorderOptions {
  /** Flush when this many events are waiting. */
  batchSize?: number;
  /** Flush at least this often. */
  intervalMs?: number;
  onError?: (error: unknown) => void;
  /** Appends each event before it is queued, so a crash loses nothing (replayed at start-up). */
  journal?: UsageJournal;
}

/** Told around each batch the recorder writes (shared budgets move a written batch's cost in Redis). */
export interface WriteObserver {
  /** Before the batch goes to the database; the write waits for it. */
  beforeWrite(batch: readonly UsageEvent[]): Promise<void>;
  /** After it: `stored` false when the write failed (the events stay queued). */
  afterWrite(batch: readonly UsageEvent[], stored: boolean): void;
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
  private observer: WriteObserver | undefined;

  constructor(
    private readonly db: Db,
    private readonly options: UsageRecorderOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? 1000);
    this.timer.unref();
    // SQLite rolls up each batch in the batch's transaction; PostgreSQL's trigger does it in the INSERT (usage-rollups.ts).
    // A replayed event whose entry id is stored already is skipped.
    const sqlite = sqliteHandleOf(db);
    this.insert = new BatchInsert(db, 'usage_events', COLUMNS, { uniqueColumn: 'entry_id', defaults: ZERO_PARTS, ...(sqlite ? { afterSqliteRowsSql: sqliteRollupByIdSql() } : {}) });
  }

  /**
   * The usage billed for a stream the upstream never reported usage for (client gone, stream cut):
   * the gateway hands over what it relayed, and the tokens are counted here (partial-usage.ts), so
   * a disconnect never makes tokens disappear from the ledger.
   */
  usageOfRelayed(relayed: RelayedStream): Usage {
    return relayedStreamUsage(relayed);
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

  /** The journal cannot be written (a full disk): answers would have no durable record (issue 34). */
  get isJournalFailing(): boolean {
    return this.options.journal?.isFailing ?? false;
  }

  record(event: UsageEvent, journaled = false): void {
    if (!journaled) this.options.journal?.append(event);
    this.queue.push(event);
    for (const listener of this.listeners) listener(event);
    if (this.queue.length >= this.batchSize) void this.flush();
  }

  observeWrites(observer: WriteObserver): void {
    this.observer = observer;
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
        await this.observer?.beforeWrite(batch);
        await this.write(batch);
      } catch (error) {
        this.observer?.afterWrite(batch, false);
        this.queue = batch.concat(this.queue);
        this.options.onError?.(error);
        return;
      }
      this.observer?.afterWrite(batch, true);
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
   * (same entry id: the gateway's own, unique per request; issue 23 item 10, where a client's
   * x-request-id reused by ten requests kept none of them): a flush that failed half-way leaves
   * its stored batches journaled. An entry journaled twice keeps its last event. Events journaled
   * before entry ids existed are matched by request id and time. The rollups follow the events
   * stored (same transaction), so a replay never counts an event twice. On PostgreSQL the check
   * and the insert hold a transaction lock, so two instances replaying the same journal at once
   * store it once; on SQLite the replay runs before the instance writes anything else.
   */
  async replay(journaled: readonly UsageEvent[]): Promise<number> {
    const events = [...new Map(journaled.map((event) => [event.entry_id ?? `${event.request_id}@${event.created_at}`, event])).values()];
    let stored = 0;
    for (let at = 0; at < events.length; at += this.batchSize) {
      const chunk = events.slice(at, at + this.batchSize);
      stored += await this.db.transaction().execute(async (trx) => {
        if (!sqliteHandleOf(this.db)) await sql`select pg_advisory_xact_lock(${sql.lit(REPLAY_LOCK)})`.execute(trx);
        const withId = chunk.filter((event) => event.entry_id);
        const present = withId.length === 0 ? [] : await trx.selectFrom('usage_events').select('entry_id').where('entry_id', 'in', withId.map((event) => event.entry_id!)).execute();
        const seen = new Set(present.map((row) => row.entry_id));
        const missing: UsageEvent[] = [];
        for (const event of chunk) {
          if (event.entry_id) {
            if (!seen.has(event.entry_id)) missing.push(event);
          } else if (!(await hasLegacy(trx, event))) {
            missing.push({ ...event, entry_id: newEntryId(Number(event.created_at)) });
          }
        }
        if (missing.length > 0) await this.insert.write(missing, trx);
        return missing.length;
      });
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

/** An event journaled before entry ids existed is stored when a row has its request id and time. */
async function hasLegacy(db: Kysely<Database>, event: UsageEvent): Promise<boolean> {
  const row = await db.selectFrom('usage_events').select('id').where('request_id', '=', event.request_id).where('created_at', '=', event.created_at).executeTakeFirst();
  return row !== undefined;
}
