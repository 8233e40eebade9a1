import type { VideoGenerationRequest } from '../../protocols/video-generations/types.js';
import type { VideoTask } from '../../tasks/video-task.js';

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The creation response: exactly the spec's fields (spec "Video generation task (creation response)"). */
export function toCreatedVideo(task: VideoTask) {
  return { id: task.id, task_id: task.id, object: 'video' as const, model: task.model, status: 'queued' as const, progress: 0, created_at: seconds(task.createdAt) };
}

/**
 * The task as GET returns it. The spec shows only the creation fields; the rest follows OpenAI's
 * video object (`completed_at`, `error{code,message}`, null when not applicable), plus
 * `video_url`: our own copy of the result, public behind an unguessable name.
 */
export function toVideoObject(task: VideoTask, publicUrl: string) {
  const request = task.request as VideoGenerationRequest;
  const result = task.status === 'completed' ? task.result : undefined;
  return {
    ...toCreatedVideo(task),
    status: task.status,
    progress: task.progress,
    completed_at: task.status === 'completed' && task.completedAt !== null ? seconds(task.completedAt) : null,
    duration: result?.durationSeconds ?? request.duration ?? null,
    resolution: result?.resolution ?? request.resolution ?? null,
    ratio: result?.ratio ?? request.ratio ?? null,
    video_url: result ? `${publicUrl}/media/videos/${result.file}` : null,
    error: task.status === 'failed' && task.error ? { code: task.error.code, message: task.error.message } : null,
  };
}
