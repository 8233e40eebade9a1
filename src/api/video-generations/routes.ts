import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generalErrors } from '../general/errors.js';
import { videoGenerationsFacts, videoGenerationsMedia } from './facts.js';
import { Type } from 'typebox';
import { GatewayError } from '../../errors.js';
import { admit } from '../../plugins/rate-limit.js';
import type { VideoGenerationRequest } from '../../protocols/video-generations/types.js';
import { createVideoTask, newAsyncTaskId } from '../../tasks/create-task.js';
import { sendVideoFile } from '../../tasks/media-store.js';
import { VideoTaskPoller } from '../../tasks/poller.js';
import type { VideoAdapter } from '../../contracts/video-adapter.js';
import type { VideoTask } from '../../tasks/video-task.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { MAX_VIDEO_SECONDS, VideoGenerationCreateRequest, validateVideoGenerationRequest } from './schemas.js';
import { toCreatedVideo, toVideoObject } from './video-object.js';

declare module '../../contracts/video-adapter.js' {
  interface VideoSurfaceAdapters {
    'video-generations': VideoAdapter<VideoGenerationRequest>;
  }
}

const IdParams = Type.Object({ id: Type.String() });

const VIDEO_GENERATIONS_ROUTE = { family: 'video-generations', errors: generalErrors, operation: 'video_generation' } as const;

/**
 * POST /v1/video/generations, GET /v1/video/generations/:id (+ /content), and the public
 * GET /media/videos/:file that `video_url` points at. Tasks are rows (tasks/), refreshed from
 * their upstream on GET and by a background poller that lives as long as the app.
 */
export async function videoGenerationsRoutes(app: FastifyInstance): Promise<void> {
  const poller = new VideoTaskPoller({ deps: app.gateway, surface: 'video-generations', log: app.log, mediaOf: videoGenerationsMedia });
  app.addHook('onReady', async () => poller.start());
  app.addHook('onClose', async () => poller.stop());

  /** A query counts against the key's limits for the task's model; its budget paid for the task already. */
  const findTask = async (request: FastifyRequest, reply: FastifyReply, id: string): Promise<VideoTask> => {
    const task = await poller.repo.findForKey(id, request.gw.key!.id, 'video-generations');
    if (!task) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No video generation task '${id}'`);
    await admit(request, reply, task.model, { checkBudget: false });
    return poller.refreshIfStale(task);
  };

  app.post(
    '/v1/video/generations',
    {
      config: VIDEO_GENERATIONS_ROUTE,
      schema: {
        summary: 'Create a reference-to-video task',
        description: 'Returns at once with status `queued`; poll GET /v1/video/generations/{id}. Required: model, prompt, images. Tuning fields may also be given inside `parameters` (equal values only).',
        tags: ['video'],
        security: [{ bearer: [] }],
        body: VideoGenerationCreateRequest,
      },
      validatorCompiler: () => toFastifyValidator((body) => validateVideoGenerationRequest(body, app.gateway.catalog)),
    },
    async (request, reply) => {
      const body = request.body as VideoGenerationRequest;
      // Without a duration the worst case is the longest the endpoint allows.
      const videoSeconds = body.duration ?? MAX_VIDEO_SECONDS;
      await admit(request, reply, body.model, { videoSeconds });
      const task = await createVideoTask({ request, surface: 'video-generations', id: newAsyncTaskId(), model: body.model, capability: null, body, videoSeconds, facts: videoGenerationsFacts(body) });
      return toCreatedVideo(task);
    },
  );

  app.get(
    '/v1/video/generations/:id',
    { config: VIDEO_GENERATIONS_ROUTE, schema: { summary: 'Get a video generation task', tags: ['video'], security: [{ bearer: [] }], params: IdParams } },
    async (request, reply) => {
      const task = await findTask(request, reply, (request.params as { id: string }).id);
      return toVideoObject(task, app.gateway.publicUrl(request));
    },
  );

  app.get(
    '/v1/video/generations/:id/content',
    { config: VIDEO_GENERATIONS_ROUTE, schema: { summary: 'Download the generated MP4', tags: ['video'], security: [{ bearer: [] }], params: IdParams } },
    async (request, reply) => {
      const task = await findTask(request, reply, (request.params as { id: string }).id);
      if (task.status !== 'completed' || !task.result) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', `Video generation task '${task.id}' has no content yet (status ${task.status})`);
      }
      return sendVideoFile(reply, app.gateway.config.dataDir, task.result.file, request.headers.range);
    },
  );

  app.get(
    '/media/videos/:file',
    { config: { isPublic: true }, schema: { summary: 'A generated video (public, unguessable link)', tags: ['video'], params: Type.Object({ file: Type.String() }) } },
    async (request, reply) => sendVideoFile(reply, app.gateway.config.dataDir, (request.params as { file: string }).file, request.headers.range),
  );
}
