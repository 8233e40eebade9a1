import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { BatchTable } from '../db/schema.js';
import type { BatchEndpoint } from '../contracts/batch-line.js';

/**
 * A batch's states (issue 46), as OpenAI names them: `validating` → `failed` | `in_progress` →
 * `finalizing` → `completed`; `in_progress` → `expired` once its window passes; `validating` or
 * `in_progress` → `cancelling` → `cancelled`.
 */
export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

export const OPEN_STATUSES = ['validating', 'in_progress', 'finalizing', 'cancelling'] as const satisfies readonly BatchStatus[];
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'] as const satisfies readonly BatchEndpoint[];

/** A line's states: `pending` until claimed, `running` while its request runs, then ended with an outcome (`done`: a 2xx). */
export type LineState = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

export type BatchRow = Selectable<BatchTable>;

export interface BatchError {
  code: string;
  message: string;
  param?: string | null;
  /** 1-based line of the input file. */
  line?: number | null;
}

/** The line shape of the output and error files (OpenAI's BatchRequestOutput). */
export interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: unknown } | null;
  error: { code: string; message: string } | null;
}

/**
 * `batch_` and the creation time in hex before the random part, so ids sort by age: the list's
 * `after` cursor and its newest-first order are one index walk.
 */
export function newBatchId(now: number): string {
  return `batch_${now.toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`;
}

export const newLineRequestId = (): string => `batch_req_${randomBytes(16).toString('hex')}`;

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(Number(ms) / 1000));
const roundUsd = (usd: number): number => Math.round(usd * 1e9) / 1e9;

/** The Batch object of OpenAI's API for a row: unix seconds, null until reached. */
export function toBatchObject(row: BatchRow) {
  const errors = row.errors ? (JSON.parse(row.errors) as BatchError[]) : null;
  const input = Number(row.input_tokens);
  const output = Number(row.output_tokens);
  return {
    id: row.id,
    object: 'batch' as const,
    endpoint: row.endpoint,
    errors: errors ? { object: 'list' as const, data: errors } : null,
    input_file_id: row.input_file_id,
    completion_window: row.completion_window,
    status: row.status as BatchStatus,
    output_file_id: row.output_file_id,
    error_file_id: row.error_file_id,
    created_at: seconds(row.created_at)!,
    in_progress_at: seconds(row.in_progress_at),
    expires_at: seconds(row.expires_at),
    finalizing_at: seconds(row.finalizing_at),
    completed_at: seconds(row.completed_at),
    failed_at: seconds(row.failed_at),
    expired_at: seconds(row.expired_at),
    cancelling_at: seconds(row.cancelling_at),
    cancelled_at: seconds(row.cancelled_at),
    request_counts: { total: Number(row.total), completed: Number(row.completed), failed: Number(row.failed) },
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: Number(row.cached_tokens) },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: Number(row.reasoning_tokens) },
      total_tokens: input + output,
    },
    metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, string>) : null,
  };
}

/** What the batch's lines cost so far, to the nano-dollar (the gateway's own figure, beside OpenAI's object). */
export const batchCostUsd = (row: BatchRow): number => roundUsd(Number(row.cost_usd));
