import { Type, type TSchema } from 'typebox';
import { GatewayError } from '../../errors.js';
import type { BatchEndpoint } from '../../contracts/batch-line.js';
import { BATCH_ENDPOINTS } from '../../batches/batch.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Endpoint = Type.Union(BATCH_ENDPOINTS.map((endpoint) => Type.Literal(endpoint)));

/** OpenAI's CreateBatchRequest, as documented; validation is validateCreateBatch's, for its `param` names. */
export const CreateBatchRequest = Type.Object(
  {
    input_file_id: Type.String({ description: 'A file of purpose `batch` this key uploaded: one JSON request per line' }),
    endpoint: Endpoint,
    completion_window: Type.Literal('24h'),
    metadata: Type.Optional(Nullable(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 }))),
    output_expires_after: Type.Optional(Type.Object({ anchor: Type.Literal('created_at'), seconds: Type.Integer({ minimum: 3600, maximum: 2_592_000 }) })),
  },
  { title: 'CreateBatchRequest' },
);

export interface CreateBatch {
  inputFileId: string;
  endpoint: BatchEndpoint;
  metadata: Record<string, string> | null;
  outputExpiresAfter: number | null;
}

const invalid = (param: string, message: string) => new GatewayError('GW_REQ_INVALID_PARAM', message, { param });
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** OpenAI's rules for creating a batch, each refusal naming its parameter. */
export function validateCreateBatch(value: unknown): CreateBatch {
  if (!isObject(value)) throw invalid('body', 'The request body must be a JSON object');
  const { input_file_id: inputFileId, endpoint, completion_window: window, metadata, output_expires_after: expiresAfter } = value;
  if (typeof inputFileId !== 'string' || inputFileId === '') throw invalid('input_file_id', "'input_file_id' is required");
  if (typeof endpoint !== 'string' || !(BATCH_ENDPOINTS as readonly string[]).includes(endpoint)) {
    throw invalid('endpoint', `'endpoint' must be one of ${BATCH_ENDPOINTS.join(', ')}`);
  }
  if (window !== '24h') throw invalid('completion_window', "'completion_window' must be '24h'");
  return { inputFileId, endpoint: endpoint as BatchEndpoint, metadata: metadataOf(metadata), outputExpiresAfter: expiresAfterOf(expiresAfter) };
}

function metadataOf(metadata: unknown): Record<string, string> | null {
  if (metadata === undefined || metadata === null) return null;
  if (!isObject(metadata)) throw invalid('metadata', "'metadata' must be an object of strings");
  const entries = Object.entries(metadata);
  if (entries.length > 16) throw invalid('metadata', "'metadata' may hold at most 16 pairs");
  for (const [key, item] of entries) {
    if (key.length > 64) throw invalid('metadata', `'metadata' keys are at most 64 characters ('${key.slice(0, 64)}…')`);
    if (typeof item !== 'string' || item.length > 512) throw invalid('metadata', `'metadata.${key}' must be a string of at most 512 characters`);
  }
  return metadata as Record<string, string>;
}

function expiresAfterOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value) || value.anchor !== 'created_at') throw invalid('output_expires_after.anchor', "'output_expires_after.anchor' must be 'created_at'");
  const seconds = value.seconds;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 3600 || seconds > 2_592_000) {
    throw invalid('output_expires_after.seconds', "'output_expires_after.seconds' must be an integer from 3600 to 2592000");
  }
  return seconds;
}

const Stamp = Nullable(Type.Integer({ description: 'Unix seconds; null until reached' }));

export const BatchObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('batch'),
    endpoint: Type.String(),
    errors: Nullable(Type.Object({ object: Type.Literal('list'), data: Type.Array(Type.Object({ code: Type.String(), message: Type.String(), param: Nullable(Type.String()), line: Nullable(Type.Integer()) })) })),
    input_file_id: Type.String(),
    completion_window: Type.String(),
    status: Type.String({ enum: ['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled'] }),
    output_file_id: Nullable(Type.String()),
    error_file_id: Nullable(Type.String()),
    created_at: Type.Integer(),
    in_progress_at: Stamp,
    expires_at: Stamp,
    finalizing_at: Stamp,
    completed_at: Stamp,
    failed_at: Stamp,
    expired_at: Stamp,
    cancelling_at: Stamp,
    cancelled_at: Stamp,
    request_counts: Type.Object({ total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() }),
    usage: Type.Object({
      input_tokens: Type.Integer(),
      input_tokens_details: Type.Object({ cached_tokens: Type.Integer() }),
      output_tokens: Type.Integer(),
      output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer() }),
      total_tokens: Type.Integer(),
    }),
    metadata: Nullable(Type.Record(Type.String(), Type.String())),
  },
  { title: 'Batch' },
);

export const BatchList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(BatchObject), first_id: Nullable(Type.String()), last_id: Nullable(Type.String()), has_more: Type.Boolean() },
  { title: 'BatchList' },
);

export const ListQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'A batch id: the page starts after it' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 100 (default 20)' })),
});
