import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator, PATTERN_RULE } from '../../validation/compile.js';

/** Queries and answers of the request log (GET /admin/api/requests, /console/api/requests; issue 12). */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const queryFields = {
  key: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Key id' })),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The x-request-id the client got' })),
  batch: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A batch id: its lines (issue 46)' })),
  error_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The error code the client read (rate_limit_exceeded, client_disconnect, …)' })),
  family: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,39}$', [PATTERN_RULE]: 'must be an endpoint family such as mcp or chat_completions', description: "The endpoint family ('mcp': MCP tool calls)" })),
  status: Type.Optional(
    Type.String({
      pattern: '^([1-5][0-9]{2}|[1-5]xx|error|success)$',
      [PATTERN_RULE]: "must be an HTTP status such as 429, a class such as 4xx, 'error' or 'success'",
      description: "An exact status (429), a class (4xx), 'error' (an error status, a stream cut by an error, or a client that left) or 'success'",
    }),
  ),
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Inclusive; ISO-8601 or Unix seconds' })),
  to: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Exclusive; ISO-8601 or Unix seconds' })),
  before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', [PATTERN_RULE]: "must be the previous page's next_before (digits)", description: "The previous page's next_before" })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', [PATTERN_RULE]: 'must be a whole number from 1 to 200', description: 'Entries per page, 1 to 200 (default 50)' })),
};

export const ConsoleRequestLogQuery = Type.Object(queryFields, { additionalProperties: false });
export type ConsoleRequestLogQuery = Static<typeof ConsoleRequestLogQuery>;
export const validateConsoleRequestLogQuery = compileValidator(ConsoleRequestLogQuery);

export const AdminRequestLogQuery = Type.Object(
  {
    ...queryFields,
    channel: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'User id: requests of the keys this user owns' })),
  },
  { additionalProperties: false },
);
export type AdminRequestLogQuery = Static<typeof AdminRequestLogQuery>;
export const validateAdminRequestLogQuery = compileValidator(AdminRequestLogQuery);

/** The export takes the list's filters, without its paging. */
const { before: _before, limit: _limit, ...csvFields } = queryFields;
const operatorFields = {
  channel: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  user: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'User id: requests of the keys this user owns' })),
};
export const ConsoleRequestCsvQuery = Type.Object(csvFields, { additionalProperties: false });
export const validateConsoleRequestCsvQuery = compileValidator(ConsoleRequestCsvQuery);
export const AdminRequestCsvQuery = Type.Object({ ...csvFields, ...operatorFields }, { additionalProperties: false });
export const validateAdminRequestCsvQuery = compileValidator(AdminRequestCsvQuery);

export const RequestEntryId = Type.Object({ id: Type.String({ description: "The entry's id from the list (not the x-request-id)" }) });

export const RequestEntry = Type.Object({
  id: Type.String({ description: "The entry's id, made by the gateway (random; for the detail)" }),
  request_id: Type.String({ description: 'The x-request-id the client got (its own or the gateway\'s): searchable, not unique' }),
  created_at: Type.String({ description: 'ISO-8601 date-time' }),
  key_id: Nullable(Type.String()),
  key_name: Nullable(Type.String()),
  user_id: Nullable(Type.String({ description: "The key's owner" })),
  family: Type.String({ description: 'Endpoint family' }),
  model: Nullable(Type.String()),
  channel: Nullable(Type.String({ description: 'The upstream channel that answered (operators only; null for key holders)' })),
  status: Type.Integer({ description: 'HTTP status sent to the client' }),
  outcome: Type.String({ description: 'success, error, stream_error or client_disconnect' }),
  latency_ms: Type.Integer(),
  ttfb_ms: Nullable(Type.Integer({ description: 'Time to the first byte of a streamed answer' })),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  reasoning_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cached_tokens: Type.Integer({ description: 'Of prompt_tokens: read from the prompt cache' }),
  cache_write_tokens: Type.Integer({ description: 'Of prompt_tokens: written to the prompt cache (5-minute or default TTL)' }),
  cache_write_1h_tokens: Type.Integer({ description: "Of prompt_tokens: written to Anthropic's 1-hour cache" }),
  image_input_tokens: Type.Integer({ description: 'Of prompt_tokens: image tokens billed apart' }),
  image_output_tokens: Type.Integer({ description: 'Of completion_tokens: image tokens billed apart' }),
  cost_usd: Type.Number(),
  cache_hit: Type.Boolean({ description: 'Answered from the response cache (issue 32): no upstream was called' }),
  saved_cost_usd: Type.Number({ description: 'On a cache hit: what the answer would have cost, less what the hit cost' }),
  batch_id: Nullable(Type.String({ description: 'The batch this request was a line of (issue 46); null for other requests' })),
  retries: Nullable(Type.Integer({ description: 'Attempts repeated on the same channel' })),
  fallbacks: Nullable(Type.Integer({ description: 'Channels tried after the first' })),
  error_code: Nullable(Type.String()),
  error_message: Nullable(Type.String()),
});

export const RequestLogPage = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(RequestEntry),
  next_before: Nullable(Type.String({ description: 'Pass as `before` for the next (older) page; null on the last page' })),
});

export const RequestDetail = Type.Intersect([
  RequestEntry,
  Type.Object({
    request_headers: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Secrets masked; null when header logging is off' })),
    request_body: Nullable(Type.String({ description: 'Only when body logging is on; cut at the configured length' })),
    response_body: Nullable(Type.String({ description: 'Only when body logging is on; a stream as the SSE text the client got' })),
    cost_lines: Type.Array(
      Type.Object({
        dimension: Type.String({ description: 'input, cached_input, cache_write_5m, cache_write_1h, image_input, output, reasoning, image_output, images or video_seconds' }),
        quantity: Type.Number(),
        unit_usd: Type.Number({ description: 'USD per 1M tokens; per image; per second of video' }),
        usd: Type.Number(),
      }),
      { description: 'The bill line by line, at the prices of the moment it was made (issue 21)' },
    ),
    attempts: Type.Array(
      Type.Object({
        channel: Nullable(Type.String({ description: 'The channel tried (operators only; null for key holders)' })),
        status: Nullable(Type.Integer({ description: "The upstream's HTTP status; null when none answered (a timeout, a refused connection)" })),
        latency_ms: Type.Integer({ description: 'From sending the attempt to its answer or failure' }),
        error_code: Nullable(Type.String({ description: 'Why the attempt failed, as the gateway names it; null for the attempt that answered' })),
        error_message: Nullable(Type.String()),
        vendor_message: Nullable(Type.String({ description: "The upstream's own error text, redacted of credentials (operators only; null for key holders)" })),
      }),
      { description: 'Each upstream attempt in order: retries on a channel and fallbacks to others; empty when no upstream was called (a request refused by the gateway)' },
    ),
  }),
], { type: 'object' });
