import type { IncomingHttpHeaders } from 'node:http';
import { BatchInsert } from '../db/batch-insert.js';
import { OneWriteAtATime } from '../db/one-write-at-a-time.js';
import type { Db } from '../db/connect.js';
import type { RequestLogConfig } from '../config/schema.js';
import { maskedHeaders } from './masked-headers.js';
import { packHeaders } from './packed-headers.js';
import type { UpstreamAttempt } from './attempts.js';

/** What an operator chose to keep (the `request_log` section of the configuration). */
export interface RequestLogSettings {
  /** Days the log keeps a request; older entries leave the log (usage reports keep their figures). */
  retentionDays: number;
  /** Keep each request's headers (secrets masked). */
  headers: boolean;
  /** Keep request and response bodies: off unless an operator turns it on. */
  bodies: boolean;
  /** Bodies are cut past this many characters. */
  maxBodyChars: number;
}

export const DEFAULT_REQUEST_LOG: RequestLogSettings = { retentionDays: 7, headers: true, bodies: false, maxBodyChars: 16 * 1024 };

/** The settings from the configuration file's `request_log` section, defaults filled in. */
export function requestLogSettings(section: RequestLogConfig | undefined): RequestLogSettings {
  return {
    retentionDays: section?.retention_days ?? DEFAULT_REQUEST_LOG.retentionDays,
    headers: section?.headers ?? DEFAULT_REQUEST_LOG.headers,
    bodies: section?.bodies ?? DEFAULT_REQUEST_LOG.bodies,
    maxBodyChars: section?.max_body_chars ?? DEFAULT_REQUEST_LOG.maxBodyChars,
  };
}

/**
 * What the request log adds to a request's usage event, taken at its end. The headers are the
 * request's own object: they are masked and serialised at the batch write, not on the request path.
 */
export interface RequestLogEntry {
  /** Its usage event's entry id (the join). */
  entry_id: string;
  request_id: string;
  created_at: number;
  retries: number;
  fallbacks: number;
  /** Each upstream attempt, when one failed (requests/attempts.ts). */
  attempts?: UpstreamAttempt[] | undefined;
  error_code: string | null;
  error_message: string | null;
  headers: IncomingHttpHeaders | undefined;
  request_body: string | undefined;
  response_body: string | undefined;
}

const COLUMNS = ['entry_id', 'request_id', 'created_at', 'retries', 'fallbacks', 'error_code', 'error_message', 'request_headers', 'request_body', 'response_body', 'attempts'] as const;

/** A database that is down must not make the log grow without end: past this, the oldest entries go. */
const MAX_QUEUED = 20_000;

export interface RequestLogOptions {
  batchSize?: number;
  intervalMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * The request log's writer (issue 12): each request's extra details (retries, the error it got,
 * headers and, when turned on, bodies) go to `request_details` in batches off the request path,
 * like the usage ledger; the log is the ledger's rows joined with them. It is not billing data:
 * when the database is down the backlog is capped, and a crash loses at most one interval.
 */
export class RequestLog {
  private queue: RequestLogEntry[] = [];
  private readonly writes = new OneWriteAtATime();
  private readonly timer: NodeJS.Timeout;
  private readonly insert: BatchInsert<'request_details'>;
  private readonly batchSize: number;
  private readonly now: () => number;
  /** Entries dropped because the queue was full (the database was unreachable for long). */
  dropped = 0;

  constructor(
    db: Db,
    readonly settings: RequestLogSettings,
    private readonly options: RequestLogOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.now = options.now ?? Date.now;
    this.insert = new BatchInsert(db, 'request_details', COLUMNS);
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? 1000);
    this.timer.unref();
  }

  /** Requests older than this (epoch ms) are out of the log; db/retention.ts deletes them. */
  get cutoff(): number {
    return this.now() - this.settings.retentionDays * 86_400_000;
  }

  record(entry: RequestLogEntry): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.queue.shift();
      this.dropped++;
    }
    this.queue.push(entry);
    if (this.queue.length >= this.batchSize) void this.flush();
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Cuts a body to the configured length, saying so. */
  clip(text: string): string {
    const max = this.settings.maxBodyChars;
    return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters not kept]`;
  }

  /** Writes what is queued; a failed batch goes back to the front for the next flush. */
  flush(): Promise<void> {
    return this.writes.run(() => this.queue.length > 0, () => this.writeQueued());
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      try {
        await this.insert.write(batch.map((entry) => this.rowOf(entry)));
      } catch (error) {
        this.queue = batch.concat(this.queue).slice(-MAX_QUEUED);
        this.options.onError?.(error);
        return;
      }
    }
  }

  private rowOf(entry: RequestLogEntry) {
    return {
      entry_id: entry.entry_id,
      request_id: entry.request_id,
      created_at: entry.created_at,
      retries: entry.retries,
      fallbacks: entry.fallbacks,
      error_code: entry.error_code,
      error_message: entry.error_message,
      request_headers: entry.headers && this.settings.headers ? packHeaders(maskedHeaders(entry.headers)) : null,
      request_body: entry.request_body === undefined ? null : this.clip(entry.request_body),
      response_body: entry.response_body === undefined ? null : this.clip(entry.response_body),
      attempts: entry.attempts ? JSON.stringify(entry.attempts) : null,
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
