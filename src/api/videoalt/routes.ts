import { randomBytes } from 'node:crypto';
import { videoaltErrors } from './errors.js';
import { videoaltFacts, videoaltTaskMedia } from './facts.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../../errors.js';
import { admit } from '../../plugins/rate-limit.js';
import { KLING_CAPABILITIES, type KlingCapability, type KlingVideoRequest } from '../../protocols/kling-video/types.js';
import { createVideoTask } from '../../tasks/create-task.js';
import { VideoTaskPoller } from '../../tasks/poller.js';
import type { VideoAdapter } from '../../contracts/video-adapter.js';
import type { VideoTask } from '../../tasks/video-task.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { klingEnvelope, toKlingCreated, toKlingTask } from './kling-task.js';
import { DEFAULT_MODEL, MAX_KLING_SECONDS, VIDEOALT_SCHEMAS, effectiveModel, validateVideoaltRequest } from './schemas.js';

declare module '../../contracts/video-adapter.js' {
  interface VideoSurfaceAdapters {
    videoalt: VideoAdapter<KlingVideoRequest>;
  }
}

/** Kling-style numeric task ids: 13 digits of time, 6 random. */
const newVideoaltTaskId = (): string => `${Date.now()}${String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0')}`;

const isCapability = (value: string): value is KlingCapability => (KLING_CAPABILITIES as readonly string[]).includes(value);

const VIDEOALT_ROUTE = { family: 'videoalt', errors: videoaltErrors, operation: 'video_generation' } as const;

/**
 * The Kling-native surface: create per capability, query by id (also the native per-capability
 * form, and by the client's `external_task_id`). Errors use the Kling envelope (by path).
 */
export async function videoaltRoutes(app: FastifyInstance): Promise<void> {
  const poller = new VideoTaskPoller({ deps: app.gateway, surface: 'videoalt', log: app.log, mediaOf: videoaltTaskMedia });
  app.addHook('onReady', async () => poller.start());
  app.addHook('onClose', async () => poller.stop());

  for (const capability of KLING_CAPABILITIES) {
    app.post(
      `/videoalt/v1/videos/${capability}`,
      {
        config: VIDEOALT_ROUTE,
        schema: { summary: `Create a ${capability} task (Kling-native)`, tags: ['videoalt'], security: [{ bearer: [] }], body: VIDEOALT_SCHEMAS[capability] },
        validatorCompiler: () => toFastifyValidator((body) => validateVideoaltRequest(capability, body)),
      },
      async (request, reply) => {
        const body = request.body as KlingVideoRequest['body'];
        const model = effectiveModel(capability, body);
        // Kling's longest clip when the body names no duration; multi-shot bodies give theirs in total.
        const videoSeconds = Number(body.duration ?? MAX_KLING_SECONDS) || MAX_KLING_SECONDS;
        await admit(request, reply, model, { videoSeconds });
        // One task per external_task_id and key: the unique index refuses a second row (task-repo.ts).
        const externalId = body.external_task_id ?? null;
        const task = await createVideoTask({ request, surface: 'videoalt', id: newVideoaltTaskId(), model, capability, body: { capability, body }, externalId, videoSeconds, facts: videoaltFacts(body) });
        return klingEnvelope(request.id, toKlingCreated(task));
      },
    );
  }

  /** A query counts against the key's limits for the task's model; its budget paid for the task already. */
  const findTask = async (request: FastifyRequest, reply: FastifyReply, id: string, capability?: string): Promise<VideoTask> => {
    const keyId = request.gw.key!.id;
    const task = (await poller.repo.findForKey(id, keyId, 'videoalt')) ?? (await poller.repo.findByExternalId(id, keyId, 'videoalt'));
    if (!task || (capability !== undefined && task.capability !== capability)) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No task '${id}'`);
    await admit(request, reply, task.model, { checkBudget: false });
    return poller.refreshIfStale(task);
  };

  // Kling's list: GET /v1/videos/{capability}?pageNum=1&pageSize=30 (pageNum 1-1000, pageSize 1-500).
  const ListQuery = Type.Object({
    pageNum: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: '1 to 1000 (default 1)' })),
    pageSize: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 500 (default 30)' })),
  });
  const pageParam = (value: string | undefined, name: string, fallback: number, max: number): number => {
    const number = value === undefined ? fallback : Number(value);
    if (number < 1 || number > max) throw new GatewayError('GW_REQ_INVALID_PARAM', `'${name}' must be from 1 to ${max}`, { param: name });
    return number;
  };
  for (const capability of KLING_CAPABILITIES) {
    app.get(
      `/videoalt/v1/videos/${capability}`,
      {
        config: VIDEOALT_ROUTE,
        schema: { summary: `List ${capability} tasks (Kling-native, newest first)`, tags: ['videoalt'], security: [{ bearer: [] }], querystring: ListQuery },
      },
      async (request, reply) => {
        const query = request.query as { pageNum?: string; pageSize?: string };
        const pageNum = pageParam(query.pageNum, 'pageNum', 1, 1000);
        const pageSize = pageParam(query.pageSize, 'pageSize', 30, 500);
        const tasks = await poller.repo.listForKey(request.gw.key!.id, 'videoalt', capability, { offset: (pageNum - 1) * pageSize, limit: pageSize });
        await admit(request, reply, tasks[0]?.model ?? DEFAULT_MODEL[capability], { checkBudget: false });
        return klingEnvelope(request.id, tasks.map((task) => toKlingTask(task, app.gateway.publicUrl(request))));
      },
    );
  }

  app.get(
    '/videoalt/v1/videos/:id',
    { config: VIDEOALT_ROUTE, schema: { summary: 'Query a task by id or external_task_id', tags: ['videoalt'], security: [{ bearer: [] }], params: Type.Object({ id: Type.String() }) } },
    async (request, reply) => {
      const task = await findTask(request, reply, (request.params as { id: string }).id);
      return klingEnvelope(request.id, toKlingTask(task, app.gateway.publicUrl(request)));
    },
  );

  app.get(
    '/videoalt/v1/videos/:capability/:id',
    {
      config: VIDEOALT_ROUTE,
      schema: { summary: 'Query a task (native per-capability form)', tags: ['videoalt'], security: [{ bearer: [] }], params: Type.Object({ capability: Type.String(), id: Type.String() }) },
    },
    async (request, reply) => {
      const { capability, id } = request.params as { capability: string; id: string };
      if (!isCapability(capability)) throw new GatewayError('GW_ROUTE_NOT_FOUND', `No endpoint GET /videoalt/v1/videos/${capability}/{task_id}`);
      const task = await findTask(request, reply, id, capability);
      return klingEnvelope(request.id, toKlingTask(task, app.gateway.publicUrl(request)));
    },
  );
}
