import { LIMITS } from '../../validation/limits.js';
import { Type, type Static, type TSchema } from 'typebox';
import { BETA_FAMILY_MODELS } from '../../catalog/models.js';
import { discriminatedUnion } from '../../validation/discriminated-union.js';
import { modelKeyedValidator } from '../../validation/model-keyed.js';
import type { ModelLookup } from '../../catalog/catalog.js';
import {
  OPENAI_REASONING_EFFORTS,
  OPENAI_REASONING_SUMMARIES,
  type OpenAIResponsesRequest,
} from '../../protocols/openai-responses/types.js';

/**
 * POST /v1/responses (spec §3): the ten beta-family models, `input` as text or message objects
 * whose content is text or input parts, and the spec's ranges. Fields not listed by the spec are
 * accepted and passed on; `instructions` is type-checked too because the chat translation reads it.
 */
const enumOf = (values: readonly string[]) => Type.Unsafe<string>({ type: 'string', enum: [...values] });
const nullableEnumOf = (values: readonly string[]) => Type.Unsafe<string | null>({ type: ['string', 'null'], enum: [...values, null] });

/**
 * "A string or an array" as one schema rather than a union: minLength only applies to strings and
 * minItems/items only to arrays, so Ajv reports the rule the client broke ("must have at least
 * 1 item(s)") instead of the first union branch's type error.
 */
const stringOrArray = <T extends TSchema>(items: T, options: { minLength?: number; minItems?: number } = {}) =>
  Type.Unsafe<string | Array<Static<T>>>({ type: ['string', 'array'], items, ...options });

export const InputTextPart = Type.Object({ type: Type.Literal('input_text'), text: Type.String() });
export const InputImagePart = Type.Object({ type: Type.Literal('input_image'), image_url: Type.String({ minLength: 1 }) });
export const InputVideoPart = Type.Object({
  type: Type.Literal('input_video'),
  video_url: Type.String({ minLength: 1 }),
  fps: Type.Optional(Type.Number(LIMITS.fps)),
});
export const InputFilePart = Type.Object({ type: Type.Literal('input_file'), file_url: Type.String({ minLength: 1 }) });

const InputPart = discriminatedUnion('type', [InputTextPart, InputImagePart, InputVideoPart, InputFilePart]);

export const InputMessage = Type.Object({
  type: Type.Optional(Type.Literal('message')),
  role: enumOf(['user', 'assistant', 'system', 'developer']),
  content: stringOrArray(InputPart),
});

/** A tool call of an earlier turn and its result, as agent loops send them back (openai.md §2). */
export const FunctionCallItem = Type.Object({
  type: Type.Literal('function_call'),
  call_id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  arguments: Type.String(),
});
export const FunctionCallOutputItem = Type.Object({
  type: Type.Literal('function_call_output'),
  call_id: Type.String({ minLength: 1 }),
  output: Type.Union([Type.String(), Type.Array(Type.Object({}))]),
});
const InputItem = Type.Union([InputMessage, FunctionCallItem, FunctionCallOutputItem]);

export const ResponsesRequest = Type.Object(
  {
    model: enumOf(BETA_FAMILY_MODELS),
    input: stringOrArray(InputItem, { minLength: 1, minItems: 1 }),
    instructions: Type.Optional(Type.String()),
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
  },
  { title: 'Create a response' },
);

const validate = modelKeyedValidator('responses', ResponsesRequest);

/** Throws a 400 naming the field and rule; the body is otherwise passed on as is. The catalog adds the operator's models (issue 21). */
export function validateResponsesRequest(body: unknown, catalog?: ModelLookup): OpenAIResponsesRequest {
  validate(body, catalog);
  return body as OpenAIResponsesRequest;
}
