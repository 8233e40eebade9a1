import type { KlingCreateBody, KlingTask, KlingTaskStatus } from '../../protocols/kling-video/types.js';
import type { VideoTask, VideoTaskStatus } from '../../tasks/video-task.js';

const KLING_STATUS = {
  queued: 'submitted',
  in_progress: 'processing',
  completed: 'succeed',
  failed: 'failed',
} as const satisfies Record<VideoTaskStatus, KlingTaskStatus>;

/** Kling's envelope around a success payload; `request_id` is ours. */
export const klingEnvelope = <Data>(requestId: string, data: Data) => ({ code: 0, message: 'SUCCEED', request_id: requestId, data });

const taskInfo = (task: VideoTask) => (task.externalId ? { external_task_id: task.externalId } : {});

/** The create response's `data` (kling.md "Create-task response"). */
export function toKlingCreated(task: VideoTask) {
  return { task_id: task.id, task_status: 'submitted' as const, task_info: taskInfo(task), created_at: task.createdAt, updated_at: task.updatedAt };
}

/**
 * The query response's `data` (kling.md "Query"). The video URL is our own copy (public,
 * unguessable); `duration` is what the upstream reported, else the requested or Kling's default "5".
 */
export function toKlingTask(task: VideoTask, publicUrl: string): KlingTask {
  const body = (task.request as { body?: KlingCreateBody }).body ?? {};
  const result = task.status === 'completed' ? task.result : undefined;
  return {
    task_id: task.id,
    task_status: KLING_STATUS[task.status],
    task_status_msg: task.status === 'failed' ? (task.error?.message ?? '') : '',
    task_info: taskInfo(task),
    ...(result
      ? {
          task_result: {
            videos: [{ id: result.file.replace(/\.mp4$/, ''), url: `${publicUrl}/media/videos/${result.file}`, duration: result.durationSeconds !== undefined ? String(result.durationSeconds) : (body.duration ?? '5') }],
          },
        }
      : {}),
    created_at: task.createdAt,
    updated_at: task.updatedAt,
  };
}
