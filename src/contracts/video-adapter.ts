import type { GatewayError } from '../errors.js';
import type { TranslateContext } from './translator.js';
import type { UpstreamCall } from './upstream-call.js';

/** Failure reasons clients see as `error.code`; upstream codes are mapped onto these, never passed raw. */
export type VideoFailureCode =
  | 'generation_failed'
  | 'content_filter'
  | 'cancelled'
  | 'expired'
  | 'upstream_error'
  | 'download_failed';

export interface VideoTaskFailure {
  code: VideoFailureCode;
  message: string;
}

/** What a vendor translator reports about an upstream task. */
export type UpstreamTaskState =
  | { status: 'queued' }
  | { status: 'in_progress'; progress?: number }
  | { status: 'completed'; videoUrl: string; durationSeconds?: number; resolution?: string; ratio?: string }
  | { status: 'failed'; error: VideoTaskFailure };

/** Where an existing upstream task lives: its id and, for per-capability APIs, the creating capability. */
export interface PollTarget {
  upstreamId: string;
  capability: string | null;
}

/**
 * One (video surface → vendor) pair of pure translators. The gateway owns the task: it stores the
 * upstream id, polls, applies our state machine (tasks/video-task.ts) and keeps the file.
 */
export interface VideoAdapter<Req> {
  toCreateRequest(req: Req, ctx: TranslateContext): UpstreamCall;
  /** Throws a GatewayError (GW_UPSTREAM_BAD_RESPONSE or a mapped error) when no task was created. */
  fromCreateResponse(res: unknown): { upstreamId: string };
  toPollRequest(target: PollTarget): UpstreamCall;
  /** Throws a GatewayError when the body is not a task state. */
  fromPollResponse(res: unknown): UpstreamTaskState;
  /** Maps an upstream error status and body to our error; never echoes upstream bodies raw. */
  fromUpstreamError(status: number, body: unknown): GatewayError;
}

/**
 * The video adapters a vendor may offer, keyed by surface. Each surface adds its key by declaration
 * merging (like FamilyPairs), so this file does not know the surfaces' request types.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface VideoSurfaceAdapters {}

export type VideoAdapterSurface = keyof VideoSurfaceAdapters;
