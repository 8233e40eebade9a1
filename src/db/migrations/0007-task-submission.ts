import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Issue 13: a video task's row is written before the upstream is asked (so a task can never exist
 * upstream without its row), which makes `external_task_id` enforceable by the database: one per
 * key and surface, a unique index instead of a check-then-insert race. Rows that already share an
 * id keep it on the oldest task only. `reserved_usd` is the task's worst-case cost, counted
 * against the key's budget until the task ends (video is charged on completion).
 */
export const taskSubmission: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`update video_tasks set external_id = null where external_id is not null and id not in (
      select min(id) from video_tasks where external_id is not null group by key_id, surface, external_id)`.execute(db);
    await db.schema.dropIndex('video_tasks_external').execute();
    await db.schema.createIndex('video_tasks_external_unique').unique().on('video_tasks').columns(['key_id', 'surface', 'external_id']).execute();
    await db.schema.alterTable('video_tasks').addColumn('reserved_usd', 'double precision', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.createIndex('video_tasks_key_status').on('video_tasks').columns(['key_id', 'status']).execute();
  },
};
