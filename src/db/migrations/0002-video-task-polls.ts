import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Video-task polling bookkeeping: when the upstream was last asked (on-demand refresh skips tasks
 * polled within the last second), how many polls failed in a row (a task gives up after a few),
 * and the client's own id for /videoalt tasks (Kling's `external_task_id`, queryable like ours).
 */
export const videoTaskPolls: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar, integer } = columnTypesFor(db);
    await db.schema.alterTable('video_tasks').addColumn('polled_at', 'bigint').execute();
    await db.schema.alterTable('video_tasks').addColumn('poll_failures', integer, (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('video_tasks').addColumn('external_id', varchar(200)).execute();
    await db.schema.createIndex('video_tasks_external').on('video_tasks').columns(['key_id', 'external_id']).execute();
  },
};
