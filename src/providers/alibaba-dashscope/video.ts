import { GatewayError } from '../../errors.js';
import { sanitizeUpstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { VideoGenerationRequest } from '../../protocols/video-generations/types.js';
import type { VideoAdapter } from '../../contracts/video-adapter.js';
import type { UpstreamTaskState, VideoFailureCode } from '../../contracts/video-adapter.js';
import { DASHSCOPE_CREATE_PATH, dashscopeTaskPath } from './endpoint.js';
import type { DashScopeErrorBody, DashScopeTaskResponse, DashScopeTaskStatus, DashScopeVideoSynthesisRequest } from './wire.js';

/** Moderation codes (alibaba-dashscope.md "Errors"): the client's content, not our failure. */
const CONTENT_FILTER_CODES = new Set(['DataInspectionFailed', 'InvalidParameter.DataInspection']);

/** POST /v1/video/generations → DashScope HappyHorse reference-to-video (pure translators). */
export const videoGenerationsToDashScope: VideoAdapter<VideoGenerationRequest> = {
  toCreateRequest(req, ctx) {
    const parameters: NonNullable<DashScopeVideoSynthesisRequest['parameters']> = {};
    // Only what the client set: DashScope's own defaults apply to the rest (never invented here).
    if (req.resolution !== undefined) parameters.resolution = req.resolution;
    if (req.ratio !== undefined) parameters.ratio = req.ratio;
    if (req.duration !== undefined) parameters.duration = req.duration;
    if (req.watermark !== undefined) parameters.watermark = req.watermark;
    if (req.seed !== undefined) parameters.seed = req.seed;
    const body: DashScopeVideoSynthesisRequest = {
      model: ctx.upstreamModel,
      input: { prompt: req.prompt, media: req.images.map((url) => ({ type: 'reference_image', url })) },
      ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
    };
    // HTTP calls are async-only; without this header DashScope answers 403 AccessDenied.
    return { method: 'POST', path: DASHSCOPE_CREATE_PATH, headers: { 'X-DashScope-Async': 'enable' }, body };
  },

  fromCreateResponse(res) {
    const taskId = (res as { output?: { task_id?: unknown } } | null)?.output?.task_id;
    if (typeof taskId !== 'string' || taskId === '') throw badResponse('create response has no output.task_id');
    return { upstreamId: taskId };
  },

  toPollRequest(target) {
    return { method: 'GET', path: dashscopeTaskPath(target.upstreamId) };
  },

  fromPollResponse(res) {
    const output = (res as Partial<DashScopeTaskResponse> | null)?.output;
    if (!output || typeof output.task_status !== 'string') throw badResponse('task response has no output.task_status');
    return taskState(res as DashScopeTaskResponse);
  },

  fromUpstreamError(status, body) {
    const { code, message } = (body && typeof body === 'object' ? body : {}) as DashScopeErrorBody;
    const detail = typeof message === 'string' ? message : undefined;
    if (typeof code === 'string' && CONTENT_FILTER_CODES.has(code)) {
      return new GatewayError('GW_UPSTREAM_CONTENT_FILTER', detail ? sanitizeUpstreamMessage(detail) : 'The request was rejected by content moderation');
    }
    // Arrearage (overdue account) is a 400 upstream but the gateway operator's problem, not the client's.
    if (code === 'Arrearage') return upstreamStatusError(403, detail);
    return upstreamStatusError(status, detail);
  },
};

function taskState(res: DashScopeTaskResponse): UpstreamTaskState {
  const { output, usage } = res;
  const status = output.task_status as DashScopeTaskStatus;
  switch (status) {
    case 'PENDING':
      return { status: 'queued' };
    case 'RUNNING':
      return { status: 'in_progress' };
    case 'SUCCEEDED': {
      if (typeof output.video_url !== 'string' || output.video_url === '') throw badResponse('succeeded task has no output.video_url');
      const durationSeconds = usage?.output_video_duration ?? usage?.duration;
      return {
        status: 'completed',
        videoUrl: output.video_url,
        ...(typeof durationSeconds === 'number' ? { durationSeconds } : {}),
        ...(typeof usage?.SR === 'number' ? { resolution: `${usage.SR}P` } : {}),
        ...(typeof usage?.ratio === 'string' ? { ratio: usage.ratio } : {}),
      };
    }
    case 'FAILED':
      return { status: 'failed', error: failure(CONTENT_FILTER_CODES.has(output.code ?? '') ? 'content_filter' : 'generation_failed', output.message, 'The video generation failed') };
    case 'CANCELED':
      return { status: 'failed', error: failure('cancelled', output.message, 'The task was cancelled upstream') };
    case 'UNKNOWN':
      // DashScope's answer for a task id that does not exist or has expired (kept 24 h).
      return { status: 'failed', error: failure('expired', undefined, 'The upstream no longer knows this task (expired or not found)') };
    default:
      throw badResponse(`unknown task_status '${String(status).slice(0, 40)}'`);
  }
}

const failure = (code: VideoFailureCode, message: string | undefined, fallback: string) => ({
  code,
  message: message ? sanitizeUpstreamMessage(message) : fallback,
});

const badResponse = (what: string): GatewayError => new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `DashScope ${what}`);
