import type { UpstreamTaskState, VideoTaskFailure } from '../contracts/video-adapter.js';
/**
 * Our video-task state machine (STYLE.md §6). Vendors only translate their task states into an
 * `UpstreamTaskState`; which of our states that leads to, and when, is decided here.
 *
 *   queued ──▶ in_progress ──▶ completed
 *     │             │
 *     └─────────────┴────────▶ failed
 *
 * `completed` and `failed` are terminal. A task may skip `in_progress` (a fast upstream), but
 * never moves backwards: an upstream that reports "pending" after "running" leaves us running.
 */
export type VideoTaskStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

/** The two public surfaces that create tasks (the `surface` column). */
export type VideoSurface = 'video-generations' | 'videoalt';

/** The finished video, stored under `<dataDir>/media/videos/<file>`. */
export interface VideoTaskResult {
  file: string;
  bytes: number;
  durationSeconds?: number;
  resolution?: string;
  ratio?: string;
}

/** A task row, decoded. Timestamps are Unix milliseconds. */
export interface VideoTask {
  id: string;
  keyId: string;
  surface: VideoSurface;
  capability: string | null;
  model: string;
  channel: string;
  upstreamId: string;
  status: VideoTaskStatus;
  progress: number;
  /** The validated client request, as the surface stored it. */
  request: unknown;
  result: VideoTaskResult | undefined;
  error: VideoTaskFailure | undefined;
  externalId: string | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  polledAt: number | null;
  pollFailures: number;
}

const LEGAL_NEXT: Record<VideoTaskStatus, readonly VideoTaskStatus[]> = {
  queued: ['in_progress', 'completed', 'failed'],
  in_progress: ['completed', 'failed'],
  completed: [],
  failed: [],
};

export const isTerminal = (status: VideoTaskStatus): boolean => LEGAL_NEXT[status].length === 0;

export const canTransition = (from: VideoTaskStatus, to: VideoTaskStatus): boolean => LEGAL_NEXT[from].includes(to);

/** Progress while running; the vendors we speak report none, so it is estimated from age. */
const PROGRESS_FLOOR = 10;
const PROGRESS_CEILING = 95;
const PROGRESS_TIME_CONSTANT_MS = 60_000;

export function estimateProgress(previous: number, elapsedMs: number, reported?: number): number {
  const estimate =
    reported ?? PROGRESS_FLOOR + Math.floor((PROGRESS_CEILING - PROGRESS_FLOOR) * (1 - Math.exp(-Math.max(0, elapsedMs) / PROGRESS_TIME_CONSTANT_MS)));
  return Math.max(previous, Math.min(PROGRESS_CEILING, Math.round(estimate)));
}

/** A non-terminal change the poller may save (completion is separate: it needs the file first). */
export interface TaskChange {
  status: VideoTaskStatus;
  progress: number;
  error?: VideoTaskFailure;
}

/**
 * Applies an observed upstream state to a task. Returns the change to save, or undefined when the
 * observation does not move the task (same state, or an illegal step backwards). A completed
 * observation is not handled here: the caller downloads the file and calls `completedChange`.
 */
export function observedChange(task: VideoTask, observed: UpstreamTaskState, nowMs: number): TaskChange | undefined {
  if (isTerminal(task.status)) return undefined;
  switch (observed.status) {
    case 'queued':
      return undefined;
    case 'in_progress': {
      const progress = estimateProgress(task.progress, nowMs - task.createdAt, observed.progress);
      if (task.status === 'in_progress' && progress === task.progress) return undefined;
      return { status: 'in_progress', progress };
    }
    case 'failed':
      return { status: 'failed', progress: task.progress, error: observed.error };
    case 'completed':
      return undefined;
  }
}

export const completedChange = (): TaskChange => ({ status: 'completed', progress: 100 });
