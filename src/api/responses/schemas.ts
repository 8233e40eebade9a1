import { LIMITS } from '../../validation/limits.js';
import { Type, type TSchema } from 'typebox';
import { BETA_FAMILY_MODELS } from '../../catalog/models.js';
import { INPUT_ITEM_DEFS, InputItem, stringOrArray } from './input-item-schemas.js';
import { ResponsesTool, ResponsesToolChoice, TOOL_DEFS } from './tool-schemas.js';
import { modelKeyedValidator } from '../../validation/model-keyed.js';
import type { ModelLookup } from '../../contracts/model-lookup.js';
import {
  OPENAI_REASONING_EFFORTS,
  OPENAI_REASONING_SUMMARIES,
  type OpenAIResponsesRequest,
} from '../../protocols/openai-responses/types.js';

/**
 * POST /v1/responses (spec §3): the ten beta-family models, `input` as text or message objects
 * whose content is text or input parts, and the spec's ranges. Agents resend their whole history
 * as input items (input-item-schemas.ts) and declare tools (tool-schemas.ts); the request fields
 * they send are type-checked as OpenAI defines them. Other fields are accepted and passed on.
 */
const enumOf = (values: readonly string[]) => Type.Unsafe<string>({ type: 'string', enum: [...values] });
const nullableEnumOf = (values: readonly string[]) => Type.Unsafe<string | null>({ type: ['string', 'null'], enum: [...values, null] });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** OpenAI's metadata: at most 16 pairs, keys up to 64 characters, values strings up to 512. */
const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: 16,
  propertyNames: { maxLength: 64 },
  additionalProperties: { type: 'string', maxLength: 512 },
});

export const ResponsesRequest = Type.Object(
  {
    model: enumOf(BETA_FAMILY_MODELS),
    input: stringOrArray(InputItem, { minLength: 1, minItems: 1 }),
    instructions: Type.Optional(nullable(Type.String())),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.outputTokens })),
    top_logprobs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.topLogprobs })),
    reasoning: Type.Optional(
      Type.Object({
        effort: Type.Optional(nullableEnumOf(OPENAI_REASONING_EFFORTS)),
        summary: Type.Optional(nullableEnumOf(OPENAI_REASONING_SUMMARIES)),
      }),
    ),
    // Not in the spec's table; checked as OpenAI's Responses API defines them, since agents send them.
    tools: Type.Optional(Type.Array(ResponsesTool)),
    tool_choice: Type.Optional(ResponsesToolChoice),
    parallel_tool_calls: Type.Optional(nullable(Type.Boolean())),
    store: Type.Optional(nullable(Type.Boolean())),
    include: Type.Optional(nullable(Type.Array(Type.String()))),
    previous_response_id: Type.Optional(nullable(Type.String())),
    prompt_cache_key: Type.Optional(Type.String()),
    safety_identifier: Type.Optional(Type.String()),
    user: Type.Optional(Type.String()),
    metadata: Type.Optional(nullable(Metadata)),
    client_metadata: Type.Optional(Type.Object({})),
    text: Type.Optional(
      Type.Object({
        format: Type.Optional(Type.Object({ type: enumOf(['text', 'json_schema', 'json_object']) })),
        verbosity: Type.Optional(nullableEnumOf(['low', 'medium', 'high'])),
      }),
    ),
    truncation: Type.Optional(nullableEnumOf(['auto', 'disabled'])),
    service_tier: Type.Optional(nullableEnumOf(['auto', 'default', 'flex', 'scale', 'priority'])),
  },
  { title: 'Create a response', $defs: { ...INPUT_ITEM_DEFS, ...TOOL_DEFS } },
);

const validate = modelKeyedValidator('responses', ResponsesRequest);

/** Throws a 400 naming the field and rule; the body is otherwise passed on as is. The catalog adds the operator's models (issue 21). */
export function validateResponsesRequest(body: unknown, catalog?: ModelLookup): OpenAIResponsesRequest {
  validate(body, catalog);
  return body as OpenAIResponsesRequest;
}
