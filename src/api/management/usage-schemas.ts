import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';

/** The usage report's query and answer, for operators (/admin/api/usage) and key holders (/console/api/usage). */
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const GROUP_BY = ['hour', 'day', 'model', 'key', 'channel', 'user', 'user_model', 'key_model'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export const UsageQuery = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1, description: 'Key id' })),
    model: Type.Optional(Type.String({ minLength: 1 })),
    channel: Type.Optional(Type.String({ minLength: 1 })),
    user: Type.Optional(Type.String({ minLength: 1, description: 'User id: usage of the keys this user owns' })),
    from: Type.Optional(Type.String({ minLength: 1, description: 'Inclusive; ISO-8601 or Unix seconds' })),
    to: Type.Optional(Type.String({ minLength: 1, description: 'Exclusive; ISO-8601 or Unix seconds' })),
    group_by: Type.Optional(enumOf(GROUP_BY)),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;
export const validateUsageQuery = compileValidator(UsageQuery);

export const UsageTotals = Type.Object({
  requests: Type.Integer({ description: 'Requests (video completion charges are not requests)' }),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  reasoning_tokens: Type.Integer({ description: 'Of the completion tokens: reasoning' }),
  cached_input_tokens: Type.Integer({ description: 'Of the prompt tokens: read from the prompt cache' }),
  cache_write_5m_tokens: Type.Integer({ description: 'Of the prompt tokens: written to the prompt cache (5 minutes)' }),
  cache_write_1h_tokens: Type.Integer({ description: 'Of the prompt tokens: written to the 1-hour prompt cache' }),
  image_input_tokens: Type.Integer({ description: 'Of the prompt tokens: image tokens' }),
  image_output_tokens: Type.Integer({ description: 'Of the completion tokens: image tokens' }),
  total_tokens: Type.Integer(),
  images: Type.Integer(),
  video_seconds: Type.Number(),
  cost_usd: Type.Number(),
  cache_hits: Type.Integer({ description: 'Requests answered from the response cache (counted in requests too)' }),
  saved_cost_usd: Type.Number({ description: 'What the cache hits would have cost, less what they cost' }),
  by_outcome: Type.Record(Type.String(), Type.Integer(), { description: 'Events per outcome: success, error, client_disconnect, stream_error, video_completed' }),
});
export type UsageTotals = Static<typeof UsageTotals>;

export const UsageReport = Type.Object({
  object: Type.Literal('usage_report'),
  group_by: Nullable(enumOf(GROUP_BY)),
  totals: UsageTotals,
  groups: Type.Array(
    Type.Intersect(
      [
        Type.Object({
          group: Type.String({ description: 'The hour (YYYY-MM-DDTHH:00Z), day (YYYY-MM-DD), model id, key id, channel or user id (user_model: the user; key_model: the key)' }),
          model: Type.Optional(Type.String({ description: 'user_model and key_model: the model' })),
        }),
        UsageTotals,
      ],
      { type: 'object' },
    ),
  ),
});
export type UsageReport = Static<typeof UsageReport>;
