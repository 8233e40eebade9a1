import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';

/** The video task list (GET /admin/api/tasks, /console/api/tasks; issue 12). */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const TASK_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;

const queryFields = {
  status: Type.Optional(Type.Unsafe<(typeof TASK_STATUSES)[number]>({ type: 'string', enum: [...TASK_STATUSES] })),
  key: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Key id' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}_[^\\u0000]{1,200}$', description: "The previous page's next_before" })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'Tasks per page, 1 to 200 (default 50)' })),
};

export const ConsoleTaskQuery = Type.Object(queryFields, { additionalProperties: false });
export const validateConsoleTaskQuery = compileValidator(ConsoleTaskQuery);
export const AdminTaskQuery = Type.Object(
  { ...queryFields, user: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'User id: tasks of the keys this user owns' })) },
  { additionalProperties: false },
);
export type AdminTaskQuery = Static<typeof AdminTaskQuery>;
export const validateAdminTaskQuery = compileValidator(AdminTaskQuery);

export const TaskEntry = Type.Object({
  id: Type.String(),
  surface: Type.String({ description: 'video-generations or videoalt' }),
  model: Type.String(),
  status: Type.String({ description: TASK_STATUSES.join(', ') }),
  progress: Type.Integer({ description: '0..100' }),
  channel: Nullable(Type.String({ description: 'Operators only; null for key holders and before submission' })),
  key_id: Type.String(),
  key_name: Nullable(Type.String()),
  created_at: Type.String(),
  finished_at: Nullable(Type.String()),
  result_url: Nullable(Type.String({ description: 'The finished video (a public, unguessable link)' })),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const TaskPage = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(TaskEntry),
  next_before: Nullable(Type.String({ description: 'Pass as `before` for the next (older) page; null on the last page' })),
});
