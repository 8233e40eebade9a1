import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SimRequest } from './server.js';

/**
 * Simulated video tasks keep no state: the upstream task id carries the creation time, the
 * configured duration and a failure flag, and every query derives the status from the clock.
 * So a task outlives its simulator: after a gateway restart (new simulator, new port) the same id
 * still completes, and its result URL points at whichever simulator answered the query.
 */
export interface SimTask {
  createdAt: number;
  durationMs: number;
  shouldFail: boolean;
}

export type SimTaskPhase = 'pending' | 'running' | 'done' | 'failed';

/** A prompt containing this marker makes the simulated task fail. */
export const SIM_FAIL_MARKER = '[[sim:fail]]';
export const DEFAULT_VIDEO_TASK_MS = 3_000;

/** Digits only (Kling's ids are numeric strings): 13 ms time, 8 duration, 1 flag, 6 random. */
export function encodeSimTaskId(task: SimTask): string {
  const random = String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0');
  return `${task.createdAt}${String(Math.min(task.durationMs, 99_999_999)).padStart(8, '0')}${task.shouldFail ? 1 : 0}${random}`;
}

export function decodeSimTaskId(id: string): SimTask | undefined {
  const match = /^(\d{13})(\d{8})([01])\d{6}$/.exec(id);
  if (!match) return undefined;
  return { createdAt: Number(match[1]), durationMs: Number(match[2]), shouldFail: match[3] === '1' };
}

/** Pending for the first quarter of the task's time, then running, then done (or failed). */
export function simTaskPhase(task: SimTask, now: number): SimTaskPhase {
  const elapsed = now - task.createdAt;
  if (elapsed >= task.durationMs) return task.shouldFail ? 'failed' : 'done';
  return elapsed < task.durationMs / 4 ? 'pending' : 'running';
}

/** The simulator's own origin as the gateway reached it, for result URLs. */
export const simOrigin = (req: SimRequest): string => `http://${req.headers.host ?? '127.0.0.1'}`;

/** A real 2 s 320x180 H.264 clip made once with ffmpeg (testsrc), shipped in assets/. */
const SAMPLE_VIDEO = new URL('../../assets/sim/sample.mp4', import.meta.url);
export const readSampleVideo = (): Promise<Buffer> => readFile(SAMPLE_VIDEO);
