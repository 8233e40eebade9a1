import { embeddingsSimRoutes } from '../../simulator/openai-embeddings.js';
import { DASHSCOPE_MAX_EMBEDDING_INPUTS } from './endpoint.js';
import { randomUUID } from 'node:crypto';
import type { SimRequest, SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { DEFAULT_VIDEO_TASK_MS, SIM_FAIL_MARKER, decodeSimTaskId, encodeSimTaskId, readSampleVideo, simOrigin, simTaskPhase } from '../../simulator/async-task.js';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'InvalidParameter', 401: 'InvalidApiKey', 403: 'AccessDenied', 404: 'NotFound', 408: 'RequestTimeOut',
  413: 'BadRequest.TooLarge', 429: 'Throttling.RateQuota', 500: 'InternalError',
};

/** DashScope's synchronous error body, without an `error` wrapper (alibaba-dashscope.md "Errors"). */
export const dashscopeErrorBody = (status: number, message: string) => ({
  request_id: randomUUID(),
  code: CODE_BY_STATUS[status] ?? 'InternalError',
  message,
});

const RESOLUTIONS = ['720P', '1080P'];
const RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'];

/**
 * Fake DashScope video synthesis: async create (X-DashScope-Async required), stateless task
 * query (see async-task.ts), result files served from the simulator itself.
 * A prompt containing `[[sim:fail]]` makes the task end FAILED.
 */
export const alibabaDashScopeSimulator: SimulatorSpec = {
  vendor: 'alibaba-dashscope',
  errorBody: dashscopeErrorBody,
  async handle(req, res) {
    const videoMatch = /^\/sim-results\/(\d+)\.mp4$/.exec(req.path);
    if (req.method === 'GET' && videoMatch) {
      res.bytes(200, await readSampleVideo(), 'video/mp4');
      return true;
    }
    if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) {
      res.json(401, dashscopeErrorBody(401, 'Invalid API-key provided.'));
      return true;
    }
    // The OpenAI-compatible embeddings endpoint: 10 inputs a call, floats only (text-embedding-v3/v4).
    if (await embeddingsSimRoutes('/compatible-mode/v1', dashscopeErrorBody, req, res, { maxInputs: DASHSCOPE_MAX_EMBEDDING_INPUTS, floatOnly: true })) return true;
    if (req.method === 'POST' && req.path === '/api/v1/services/aigc/video-generation/video-synthesis') {
      create(req, res);
      return true;
    }
    const taskMatch = /^\/api\/v1\/tasks\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && taskMatch) {
      query(req, res, decodeURIComponent(taskMatch[1]!));
      return true;
    }
    return false;
  },
};

function create(req: SimRequest, res: SimResponse): void {
  if (req.headers['x-dashscope-async'] !== 'enable') {
    res.json(403, dashscopeErrorBody(403, 'current user api does not support synchronous calls'));
    return;
  }
  const problem = invalidField(req.body);
  if (problem) {
    res.json(400, dashscopeErrorBody(400, problem));
    return;
  }
  const prompt = (req.body as { input: { prompt: string } }).input.prompt;
  const taskId = encodeSimTaskId({
    createdAt: Date.now(),
    durationMs: res.options.video_task_ms ?? DEFAULT_VIDEO_TASK_MS,
    shouldFail: prompt.includes(SIM_FAIL_MARKER),
  });
  res.json(200, { request_id: randomUUID(), output: { task_id: taskId, task_status: 'PENDING' } });
}

function invalidField(body: unknown): string | undefined {
  const b = body as { model?: unknown; input?: { prompt?: unknown; media?: unknown }; parameters?: Record<string, unknown> } | undefined;
  if (!b || typeof b.model !== 'string' || b.model === '') return 'Model not exist.';
  if (!b.model.startsWith('happyhorse-')) return 'Model not exist.';
  if (typeof b.input?.prompt !== 'string' || b.input.prompt === '') return 'input.prompt is required';
  const media = b.input.media;
  if (!Array.isArray(media) || media.length === 0) return 'input.media must contain at least one reference_image';
  if (media.some((m: { type?: unknown; url?: unknown }) => m?.type !== 'reference_image' || typeof m.url !== 'string')) return 'input.media items must be {type: reference_image, url}';
  const p = b.parameters ?? {};
  if (p.resolution !== undefined && !RESOLUTIONS.includes(p.resolution as string)) return 'parameters.resolution is invalid';
  if (p.ratio !== undefined && !RATIOS.includes(p.ratio as string)) return 'parameters.ratio is invalid';
  if (p.duration !== undefined && !(Number.isInteger(p.duration) && (p.duration as number) >= 3 && (p.duration as number) <= 15)) return 'parameters.duration must be 3 to 15';
  if (p.watermark !== undefined && typeof p.watermark !== 'boolean') return 'parameters.watermark must be a boolean';
  if (p.seed !== undefined && !(Number.isInteger(p.seed) && (p.seed as number) >= 0 && (p.seed as number) <= 2147483647)) return 'parameters.seed is out of range';
  return undefined;
}

function query(req: SimRequest, res: SimResponse, taskId: string): void {
  const task = decodeSimTaskId(taskId);
  if (!task) {
    // DashScope answers an unknown or expired id with HTTP 200 and UNKNOWN.
    res.json(200, { request_id: randomUUID(), output: { task_id: taskId, task_status: 'UNKNOWN' } });
    return;
  }
  const now = Date.now();
  const phase = simTaskPhase(task, now);
  const status = { pending: 'PENDING', running: 'RUNNING', done: 'SUCCEEDED', failed: 'FAILED' }[phase];
  const output: Record<string, unknown> = { task_id: taskId, task_status: status, submit_time: timestamp(task.createdAt) };
  if (phase !== 'pending') output.scheduled_time = timestamp(task.createdAt + task.durationMs / 4);
  if (phase === 'done' || phase === 'failed') output.end_time = timestamp(task.createdAt + task.durationMs);
  if (phase === 'failed') Object.assign(output, { code: 'InternalError.Algo', message: `The simulated task failed (prompt contains ${SIM_FAIL_MARKER})` });
  if (phase !== 'done') {
    res.json(200, { request_id: randomUUID(), output });
    return;
  }
  output.video_url = `${simOrigin(req)}/sim-results/${taskId}.mp4?Expires=${Math.floor(now / 1000) + 86_400}`;
  res.json(200, { request_id: randomUUID(), output, usage: { duration: 2, input_video_duration: 0, output_video_duration: 2, video_count: 1, SR: 720, ratio: '16:9' } });
}

/** DashScope's timestamp form: `YYYY-MM-DD HH:MM:SS.mmm`. */
const timestamp = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
