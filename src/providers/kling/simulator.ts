import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { VIDEOALT_MODELS } from '../../protocols/kling-video/types.js';
import type { SimRequest, SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { DEFAULT_VIDEO_TASK_MS, SIM_FAIL_MARKER, decodeSimTaskId, encodeSimTaskId, readSampleVideo, simOrigin, simTaskPhase } from '../../simulator/async-task.js';

/** The simulator account's SecretKey; simulator channels are given it (build-channels.ts). */
export const KLING_SIM_SECRET_KEY = 'simulator-sk';

const CODE_BY_STATUS: Record<number, number> = { 400: 1200, 401: 1000, 403: 1103, 404: 1203, 429: 1302, 500: 5000, 503: 5001, 504: 5002 };

/** Kling's error envelope (kling.md "Error codes"). */
export const klingErrorBody = (status: number, message: string) => ({ code: CODE_BY_STATUS[status] ?? 5000, message, request_id: randomUUID() });

type Capability = keyof typeof VIDEOALT_MODELS;
const isCapability = (value: string): value is Capability => Object.hasOwn(VIDEOALT_MODELS, value);

/**
 * Fake Kling video API: JWT-checked (HS256 with `simulator-sk`, exp and nbf), per-capability
 * create and query, stateless tasks (async-task.ts), result files served by the simulator.
 * A prompt containing `[[sim:fail]]` makes the task end `failed`.
 */
export const klingSimulator: SimulatorSpec = {
  vendor: 'kling',
  errorBody: klingErrorBody,
  async handle(req, res) {
    if (req.method === 'GET' && /^\/sim-results\/\d+\.mp4$/.test(req.path)) {
      res.bytes(200, await readSampleVideo(), 'video/mp4');
      return true;
    }
    const match = /^\/v1\/videos\/([a-z0-9-]+)(?:\/([^/]+))?$/.exec(req.path);
    if (!match || !isCapability(match[1]!)) return false;
    const authFailure = checkJwt(req.headers.authorization);
    if (authFailure) {
      res.json(401, { code: authFailure[0], message: authFailure[1], request_id: randomUUID() });
      return true;
    }
    if (req.method === 'POST' && !match[2]) create(req, res, match[1]);
    else if (req.method === 'GET' && match[2]) query(req, res, decodeURIComponent(match[2]));
    else return false;
    return true;
  },
};

/** Returns [code, message] when the token is unacceptable (kling.md "Auth": codes 1000–1004). */
function checkJwt(header: string | undefined): [number, string] | undefined {
  if (!header) return [1001, 'Authorization header is empty'];
  const token = /^Bearer (\S+)$/.exec(header)?.[1];
  const parts = token?.split('.');
  if (!parts || parts.length !== 3) return [1002, 'Authorization is invalid'];
  const [head, body, signature] = parts as [string, string, string];
  const expected = createHmac('sha256', KLING_SIM_SECRET_KEY).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return [1002, 'Authorization is invalid'];
  let payload: { iss?: unknown; exp?: unknown; nbf?: unknown };
  try {
    const decodedHead = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: unknown };
    if (decodedHead.alg !== 'HS256') return [1002, 'Authorization is invalid'];
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
  } catch {
    return [1002, 'Authorization is invalid'];
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.iss !== 'string' || payload.iss === '' || typeof payload.exp !== 'number') return [1002, 'Authorization is invalid'];
  if (typeof payload.nbf === 'number' && payload.nbf > now) return [1003, 'Authorization is not active yet'];
  if (payload.exp <= now) return [1004, 'Authorization has expired'];
  return undefined;
}

function create(req: SimRequest, res: SimResponse, capability: Capability): void {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const problem = invalidField(body, capability);
  if (problem) {
    res.json(400, { code: 1201, message: problem, request_id: randomUUID() });
    return;
  }
  const now = Date.now();
  const prompt = typeof body.prompt === 'string' ? body.prompt : '';
  const taskId = encodeSimTaskId({ createdAt: now, durationMs: res.options.video_task_ms ?? DEFAULT_VIDEO_TASK_MS, shouldFail: prompt.includes(SIM_FAIL_MARKER) });
  const taskInfo = typeof body.external_task_id === 'string' ? { external_task_id: body.external_task_id } : {};
  res.json(200, { code: 0, message: 'SUCCEED', request_id: randomUUID(), data: { task_id: taskId, task_status: 'submitted', task_info: taskInfo, created_at: now, updated_at: now } });
}

function invalidField(body: Record<string, unknown>, capability: Capability): string | undefined {
  const models: readonly string[] = VIDEOALT_MODELS[capability];
  if (body.model_name !== undefined && !models.includes(body.model_name as string)) return `model_name must be one of ${models.join(', ')}`;
  if (body.prompt !== undefined && (typeof body.prompt !== 'string' || body.prompt.length > 2500)) return 'prompt must be a string of at most 2500 characters';
  const isCustomShots = body.multi_shot === true && body.shot_type === 'customize';
  if (capability === 'text2video' && typeof body.prompt !== 'string' && !isCustomShots) return 'prompt is required';
  if (capability === 'image2video' && typeof body.image !== 'string' && typeof body.image_tail !== 'string') return 'image or image_tail is required';
  if (capability === 'multi-image2video' && (!Array.isArray(body.image_list) || body.image_list.length === 0 || body.image_list.length > 4)) return 'image_list must have 1 to 4 items';
  return undefined;
}

function query(req: SimRequest, res: SimResponse, taskId: string): void {
  const task = decodeSimTaskId(taskId);
  if (!task) {
    res.json(404, { code: 1203, message: 'task does not exist', request_id: randomUUID() });
    return;
  }
  const phase = simTaskPhase(task, Date.now());
  const status = { pending: 'submitted', running: 'processing', done: 'succeed', failed: 'failed' }[phase];
  const updatedAt = phase === 'pending' ? task.createdAt : phase === 'running' ? task.createdAt + Math.floor(task.durationMs / 4) : task.createdAt + task.durationMs;
  const data: Record<string, unknown> = {
    task_id: taskId,
    task_status: status,
    task_status_msg: phase === 'failed' ? `The simulated task failed (prompt contains ${SIM_FAIL_MARKER})` : '',
    task_info: {},
    created_at: task.createdAt,
    updated_at: updatedAt,
  };
  // The sample clip is 2 s long; the simulator reports the file's real duration.
  if (phase === 'done') data.task_result = { videos: [{ id: randomUUID(), url: `${simOrigin(req)}/sim-results/${taskId}.mp4`, duration: '2' }] };
  res.json(200, { code: 0, message: 'SUCCEED', request_id: randomUUID(), data });
}
