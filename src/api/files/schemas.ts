import { Type } from 'typebox';
import { GatewayError } from '../../errors.js';
import { FILE_PURPOSES, type FileListQuery, type FilePurpose, type UploadPurpose } from '../../files/file-store.js';
import { PATTERN_RULE } from '../../validation/compile.js';

/**
 * The Files API's rules (OpenAI's `openapi.yaml`: CreateFileRequest, OpenAIFile, ListFilesResponse):
 * the form's fields, the list's query, the shapes answered, and the limits' defaults.
 */

/** OpenAI's limits: 512 MB a file, 200 MB for a Batch input (GATEWAY_FILE_MAX_BYTES, GATEWAY_BATCH_FILE_MAX_BYTES). */
export const DEFAULT_FILE_MAX_BYTES = 512 * 1024 * 1024;
export const DEFAULT_BATCH_FILE_MAX_BYTES = 200 * 1024 * 1024;
/** `expires_after[seconds]`: one hour to 30 days. */
export const MIN_EXPIRY_S = 3600;
export const MAX_EXPIRY_S = 2_592_000;
/** "By default, files with purpose=batch expire after 30 days; others persist until deleted." */
export const BATCH_DEFAULT_EXPIRY_S = MAX_EXPIRY_S;
export const MAX_LIST_LIMIT = 10_000;

const ALL_PURPOSES = [...FILE_PURPOSES, 'assistants_output', 'batch_output', 'fine-tune-results'] as const satisfies readonly FilePurpose[];

const invalid = (param: string, message: string) => new GatewayError('GW_REQ_INVALID_PARAM', message, { param });

export function parseUploadPurpose(value: string | undefined): UploadPurpose {
  if (value === undefined || value === '') throw invalid('purpose', "'purpose' is required");
  if (!(FILE_PURPOSES as readonly string[]).includes(value)) throw invalid('purpose', `'purpose' must be one of: ${FILE_PURPOSES.join(', ')}`);
  return value as UploadPurpose;
}

/** The form's `expires_after[anchor]` and `expires_after[seconds]`: the seconds, or undefined when neither is sent. */
export function parseExpiresAfter(anchor: string | undefined, seconds: string | undefined): number | undefined {
  if (anchor === undefined && seconds === undefined) return undefined;
  if (anchor !== 'created_at') throw invalid('expires_after[anchor]', "'expires_after[anchor]' must be 'created_at'");
  const value = seconds !== undefined && /^\d{1,10}$/.test(seconds) ? Number(seconds) : NaN;
  if (!(value >= MIN_EXPIRY_S && value <= MAX_EXPIRY_S)) throw invalid('expires_after[seconds]', `'expires_after[seconds]' must be a whole number from ${MIN_EXPIRY_S} to ${MAX_EXPIRY_S}`);
  return value;
}

export const isJsonlName = (filename: string): boolean => /\.jsonl$/i.test(filename);

export const FileIdParams = Type.Object({ id: Type.String() });

export const FileListQueryString = Type.Object({
  purpose: Type.Optional(Type.String({ description: 'Only files of this purpose' })),
  after: Type.Optional(Type.String({ description: 'A file id: the page starts after it, in `order`' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$', [PATTERN_RULE]: `must be a whole number from 1 to ${MAX_LIST_LIMIT}`, description: `Files per page, 1 to ${MAX_LIST_LIMIT} (default ${MAX_LIST_LIMIT})` })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'By creation time; default `desc`' })),
});

export function parseListQuery(query: { purpose?: string; after?: string; limit?: string; order?: 'asc' | 'desc' }): FileListQuery {
  const limit = query.limit === undefined ? MAX_LIST_LIMIT : Number(query.limit);
  if (!(limit >= 1 && limit <= MAX_LIST_LIMIT)) throw invalid('limit', `'limit' must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
  if (query.purpose !== undefined && !(ALL_PURPOSES as readonly string[]).includes(query.purpose)) throw invalid('purpose', `'purpose' must be one of: ${ALL_PURPOSES.join(', ')}`);
  return {
    limit,
    order: query.order ?? 'desc',
    ...(query.purpose !== undefined ? { purpose: query.purpose as FilePurpose } : {}),
    ...(query.after !== undefined ? { after: query.after } : {}),
  };
}

export const FileObject = Type.Object(
  {
    id: Type.String({ description: '`file-…`' }),
    object: Type.Literal('file'),
    bytes: Type.Integer(),
    created_at: Type.Integer({ description: 'Unix seconds' }),
    expires_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null: kept until deleted' }),
    filename: Type.String(),
    purpose: Type.String({ enum: [...ALL_PURPOSES] }),
    status: Type.Literal('processed', { description: 'Deprecated by OpenAI; always `processed`' }),
    status_details: Type.Null({ description: 'Deprecated by OpenAI; always null' }),
  },
  { title: 'File' },
);

export const FileList = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(FileObject),
    first_id: Type.Union([Type.String(), Type.Null()]),
    last_id: Type.Union([Type.String(), Type.Null()]),
    has_more: Type.Boolean(),
  },
  { title: 'FileList' },
);

export const FileDeleted = Type.Object({ id: Type.String(), object: Type.Literal('file'), deleted: Type.Boolean() }, { title: 'FileDeleted' });

/** The upload form, for the OpenAPI document (the route reads the parts as they stream in). */
export const FileUploadForm = Type.Object(
  {
    file: Type.String({ format: 'binary', description: `The file; at most ${DEFAULT_FILE_MAX_BYTES} bytes by default, and a \`batch\` file is JSONL (\`.jsonl\`) of at most ${DEFAULT_BATCH_FILE_MAX_BYTES} bytes` }),
    purpose: Type.String({ enum: [...FILE_PURPOSES] }),
    'expires_after[anchor]': Type.Optional(Type.Literal('created_at')),
    'expires_after[seconds]': Type.Optional(Type.Integer({ minimum: MIN_EXPIRY_S, maximum: MAX_EXPIRY_S })),
  },
  { title: 'FileUpload' },
);
