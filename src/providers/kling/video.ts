import { GatewayError } from '../../errors.js';
import { sanitizeUpstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { VideoAdapter } from '../../contracts/video-adapter.js';
import type { UpstreamTaskState } from '../../contracts/video-adapter.js';
import { klingCreatePath, klingTaskPath } from './endpoint.js';
import {
  KLING_ACCOUNT_CODES, KLING_AUTH_CODES, KLING_BAD_REQUEST_CODES, KLING_POLICY_CODES, KLING_RATE_CODES,
  type KlingEnvelope, type KlingTask, type KlingTaskStatus, type KlingVideoRequest,
} from './wire.js';

const isIn = (codes: readonly number[], code: number): boolean => codes.includes(code);

/**
 * /videoalt (Kling-native) → Kling: the body passes through with `model_name` set to the channel's
 * upstream name. `external_task_id` stays with the gateway (Kling wants it unique per account, and
 * one account serves many keys); `callback_url` is refused by the surface before this point.
 */
export const videoaltToKling: VideoAdapter<KlingVideoRequest> = {
  toCreateRequest(req, ctx) {
    const { external_task_id: _external, callback_url: _callback, ...body } = req.body;
    return { method: 'POST', path: klingCreatePath(req.capability), body: { ...body, model_name: ctx.upstreamModel } };
  },

  fromCreateResponse(res) {
    const data = successData(res);
    const taskId = (data as { task_id?: unknown } | undefined)?.task_id;
    if (typeof taskId !== 'string' || taskId === '') throw badResponse('create response has no data.task_id');
    return { upstreamId: taskId };
  },

  toPollRequest(target) {
    // Kling has no generic query: only the capability that created the task knows it.
    if (!target.capability) throw new GatewayError('GW_INTERNAL', 'A Kling task needs the capability that created it');
    return { method: 'GET', path: klingTaskPath(target.capability, target.upstreamId) };
  },

  fromPollResponse(res) {
    const data = successData(res) as Partial<KlingTask> | undefined;
    if (!data || typeof data.task_status !== 'string') throw badResponse('task response has no data.task_status');
    return taskState(data as KlingTask);
  },

  fromUpstreamError(status, body) {
    const { code, message } = (body && typeof body === 'object' ? body : {}) as Partial<KlingEnvelope<unknown>>;
    const detail = typeof message === 'string' ? message : undefined;
    if (typeof code !== 'number') return upstreamStatusError(status, detail);
    if (isIn(KLING_AUTH_CODES, code) || isIn(KLING_ACCOUNT_CODES, code)) return upstreamStatusError(401, detail);
    // Codes about the client's own request keep their number in the Kling-native envelope; account
    // and credential codes are the operator's business and become the gateway's own.
    if (isIn(KLING_BAD_REQUEST_CODES, code)) return withVendorCode(upstreamStatusError(400, detail), code);
    if (isIn(KLING_POLICY_CODES, code)) {
      return new GatewayError('GW_UPSTREAM_CONTENT_FILTER', detail ? sanitizeUpstreamMessage(detail) : 'The request was rejected by content policy', { vendorCode: code });
    }
    if (isIn(KLING_RATE_CODES, code)) return withVendorCode(upstreamStatusError(429, detail), code);
    if (code === 5001) return upstreamStatusError(503, detail);
    if (code === 5002) return upstreamStatusError(504, detail);
    return upstreamStatusError(status >= 400 ? status : 502, detail);
  },
};

/** `data` of a `code: 0` envelope; any other code is an error even under HTTP 200. */
function successData(res: unknown): unknown {
  const envelope = res as Partial<KlingEnvelope<unknown>> | null;
  if (!envelope || typeof envelope !== 'object' || typeof envelope.code !== 'number') throw badResponse('response is not a Kling envelope');
  if (envelope.code !== 0) throw videoaltToKling.fromUpstreamError(200, envelope);
  return envelope.data;
}

function taskState(task: KlingTask): UpstreamTaskState {
  const status = task.task_status as KlingTaskStatus;
  switch (status) {
    case 'submitted':
      return { status: 'queued' };
    case 'processing':
      return { status: 'in_progress' };
    case 'succeed': {
      const video = task.task_result?.videos?.[0];
      if (!video || typeof video.url !== 'string' || video.url === '') throw badResponse('succeeded task has no task_result.videos[0].url');
      const durationSeconds = Number.parseFloat(video.duration);
      return { status: 'completed', videoUrl: video.url, ...(Number.isFinite(durationSeconds) ? { durationSeconds } : {}) };
    }
    case 'failed': {
      const message = task.task_status_msg ? sanitizeUpstreamMessage(task.task_status_msg) : 'The video generation failed';
      return { status: 'failed', error: { code: 'generation_failed', message } };
    }
    default:
      throw badResponse(`unknown task_status '${String(status).slice(0, 40)}'`);
  }
}

const badResponse = (what: string): GatewayError => new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `Kling ${what}`);

const withVendorCode = (error: GatewayError, vendorCode: number): GatewayError =>
  new GatewayError(error.code, error.message, { vendorCode, retryAfterSeconds: error.retryAfterSeconds, param: error.param });
