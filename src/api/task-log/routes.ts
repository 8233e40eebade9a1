import type { FastifyInstance } from 'fastify';
import { pageLimit, type ScopedListRoutes } from '../paging.js';
import { NOT_SUBMITTED } from '../../tasks/task-repo.js';
import type { VideoTaskResult } from '../../tasks/video-task.js';
import { iso } from '../management/key-input.js';
import { validated } from '../management/route-validation.js';
import { AdminTaskQuery, ConsoleTaskQuery, TaskPage, validateAdminTaskQuery, validateConsoleTaskQuery } from './schemas.js';

/**
 * Video tasks, newest first (issue 12): for operators every key's, for key holders their own
 * keys' (no channel names). Paged by (created_at, id), so tasks made in the same millisecond are
 * neither skipped nor repeated.
 */
export async function taskListRoutes(app: FastifyInstance, { base, opts, ownerOf }: ScopedListRoutes): Promise<void> {
  const { db } = app.gateway;
  const operator = base === '/admin/api';
  app.get(
    `${base}/tasks`,
    {
      ...opts(operator ? 'Video tasks of every key, newest first' : 'Video tasks of your keys, newest first', {
        querystring: operator ? AdminTaskQuery : ConsoleTaskQuery,
        response: { 200: TaskPage },
      }),
      validatorCompiler: validated(operator ? validateAdminTaskQuery : validateConsoleTaskQuery),
    },
    async (request) => {
      const query = request.query as AdminTaskQuery;
      const limit = pageLimit(query.limit);
      const cursor = query.before === undefined ? undefined : { at: Number(query.before.slice(0, query.before.indexOf('_'))), id: query.before.slice(query.before.indexOf('_') + 1) };
      const ownerId = ownerOf(request) ?? query.user;
      const rows = await db
        .selectFrom('video_tasks as t')
        .leftJoin('api_keys as k', 'k.id', 't.key_id')
        .select(['t.id', 't.surface', 't.model', 't.status', 't.progress', 't.channel', 't.key_id', 'k.name as key_name', 't.created_at', 't.completed_at', 't.result', 't.error_code', 't.error_message'])
        .$if(query.status !== undefined, (qb) => qb.where('t.status', '=', query.status!))
        .$if(query.key !== undefined, (qb) => qb.where('t.key_id', '=', query.key!))
        .$if(query.model !== undefined, (qb) => qb.where('t.model', '=', query.model!))
        .$if(ownerId !== undefined, (qb) => qb.where('k.owner', '=', ownerId!))
        .$if(cursor !== undefined, (qb) =>
          qb.where((eb) => eb.or([eb('t.created_at', '<', cursor!.at), eb.and([eb('t.created_at', '=', cursor!.at), eb('t.id', '<', cursor!.id)])])),
        )
        .orderBy('t.created_at', 'desc')
        .orderBy('t.id', 'desc')
        .limit(limit + 1)
        .execute();
      const more = rows.length > limit;
      if (more) rows.length = limit;
      const origin = app.gateway.publicUrl(request);
      const last = rows.at(-1);
      return {
        object: 'list' as const,
        data: rows.map((row) => {
          const result = row.result === null ? undefined : (JSON.parse(row.result) as VideoTaskResult);
          return {
            id: row.id,
            surface: row.surface,
            model: row.model,
            status: row.status,
            progress: row.progress,
            channel: operator && row.channel !== NOT_SUBMITTED ? row.channel : null,
            key_id: row.key_id,
            key_name: row.key_name,
            created_at: iso(row.created_at)!,
            finished_at: iso(row.completed_at),
            result_url: row.status === 'completed' && result ? `${origin}/media/videos/${result.file}` : null,
            error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
          };
        }),
        next_before: more && last ? `${last.created_at}_${last.id}` : null,
      };
    },
  );
}
