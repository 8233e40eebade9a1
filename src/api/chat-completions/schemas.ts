import { Type, type Static, type TSchema } from 'typebox';
import { BETA_FAMILY_MODELS, FAMILY_A_MODELS, FAMILY_C_MODELS } from '../../catalog/models.js';
import { discriminatedUnion } from '../../validation/discriminated-union.js';
import { compileValidator, type Validator } from '../../validation/compile.js';
import { GatewayError } from '../../errors.js';
import type { ModelLookup } from '../../contracts/model-lookup.js';
import { withCatalogModels, withOpenModel } from '../../validation/model-keyed.js';
import type { OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import { LIMITS } from '../../validation/limits.js';

/**
 * POST /v1/chat/completions (spec §1). The request shape depends on the model: family A
 * (delta-4.1), family B (the ten beta/epsilon models) and family C (beta-seed-1-6-lite-251015).
 * C's model is also in B; for it both rule sets apply (docs/decisions.md): string content only,
 * max_tokens 1..8192, at most 4 stop sequences, penalties -2..2.
 * Fields not listed by the spec are accepted and passed on.
 */
const enumOf = (values: readonly string[]) => Type.Unsafe<string>({ type: 'string', enum: [...values] });

export const ChatRole = enumOf(['system', 'developer', 'user', 'assistant', 'tool']);
const Penalty = Type.Number({ minimum: -2, maximum: 2 });
const Temperature = Type.Number({ minimum: 0, maximum: 2 });
const TopP = Type.Number({ minimum: 0, maximum: 1 });
const StreamOptions = Type.Object({ include_usage: Type.Optional(Type.Boolean()) });

export const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() });
export const ImageUrlPart = Type.Object({
  type: Type.Literal('image_url'),
  image_url: Type.Object({ url: Type.String({ minLength: 1 }) }),
});
export const VideoUrlPart = Type.Object({
  type: Type.Literal('video_url'),
  video_url: Type.Object({ url: Type.String({ minLength: 1 }), fps: Type.Optional(Type.Number(LIMITS.fps)) }),
});
const MultimodalContent = Type.Union([Type.String(), Type.Array(discriminatedUnion('type', [TextPart, ImageUrlPart, VideoUrlPart]))]);

/**
 * A chat message whose `content` follows the family's rule, with the turns of a tool
 * conversation as OpenAI defines them (and agent SDKs send them): an assistant turn that carries
 * `tool_calls` may have `content: null`, and a `tool` message names the call it answers in
 * `tool_call_id`. Any other `null` content is refused by the family's own rule.
 *
 * The content rule is written once and the conditions only look at roles and `null`: a validator
 * with the parts union inlined three times is too large for V8 to optimise (25 times slower for a
 * body of 200,000 messages), and the common message passes each condition instead of failing it.
 */
const chatMessage = (content: TSchema, contentTypes: string | string[]) =>
  Type.Unsafe<{ role: string; content: unknown }>({
    type: 'object',
    required: ['role', 'content'],
    properties: {
      role: ChatRole,
      content: { anyOf: [content, { type: 'null' }] },
      tool_calls: { type: 'array', minItems: 1 },
      tool_call_id: { type: 'string', minLength: 1 },
    },
    if: { properties: { role: { enum: ['system', 'developer', 'user', 'assistant'] }, content: { type: contentTypes } } },
    then: {},
    else: {
      if: { properties: { role: { const: 'tool' } } },
      then: { required: ['tool_call_id'], properties: { content: { type: contentTypes } } },
      else: {
        if: { properties: { role: { const: 'assistant' }, content: { type: 'null' } } },
        then: { required: ['tool_calls'] },
        else: { properties: { content: { type: contentTypes } } },
      },
    },
  });

const StringMessage = chatMessage(Type.String(), 'string');
const MultimodalMessage = chatMessage(MultimodalContent, ['string', 'array']);

const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    parameters: Type.Optional(Type.Object({})),
  }),
});
const ToolChoice = Type.Union([
  enumOf(['none', 'auto', 'required']),
  Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String() }) }),
]);

const Choices = Type.Integer({ minimum: 1, maximum: LIMITS.choices });
const common = {
  max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.outputTokens })),
  // Not in the spec's tables, but acted on (simulators, budgets) or passed on: bounded all the same.
  max_completion_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.outputTokens })),
  top_logprobs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.topLogprobs })),
  seed: Type.Optional(Type.Integer({ minimum: -LIMITS.seed, maximum: LIMITS.seed })),
  temperature: Type.Optional(Temperature),
  top_p: Type.Optional(TopP),
  stream: Type.Optional(Type.Boolean()),
  stream_options: Type.Optional(StreamOptions),
};

export const FamilyARequest = Type.Object(
  {
    model: enumOf(FAMILY_A_MODELS),
    messages: Type.Array(StringMessage, { minItems: 1 }),
    ...common,
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    frequency_penalty: Type.Optional(Penalty),
    presence_penalty: Type.Optional(Penalty),
    n: Type.Optional(Choices),
    response_format: Type.Optional(Type.Object({ type: enumOf(['text', 'json_object', 'json_schema']) })),
    // A one-branch discriminated union, so a non-function tool is told which types exist.
    tools: Type.Optional(Type.Array(discriminatedUnion('type', [FunctionTool]))),
    tool_choice: Type.Optional(ToolChoice),
    user: Type.Optional(Type.String()),
  },
  { title: 'Family A (delta-4.1)' },
);

export const FamilyBRequest = Type.Object(
  {
    model: enumOf(BETA_FAMILY_MODELS),
    messages: Type.Array(MultimodalMessage, { minItems: 1 }),
    ...common,
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })])),
    n: Type.Optional(Choices),
  },
  { title: 'Family B (beta multimodal chat)' },
);

export const FamilyCRequest = Type.Object(
  {
    model: enumOf(FAMILY_C_MODELS),
    messages: Type.Array(StringMessage, { minItems: 1 }),
    ...common,
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 8192 })),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    frequency_penalty: Type.Optional(Penalty),
    presence_penalty: Type.Optional(Penalty),
  },
  { title: 'Family C (beta-seed-1-6-lite-251015)' },
);

/** For the OpenAPI document; validation goes through `validateChatCompletionsRequest`. */
export const ChatCompletionsRequestDoc: TSchema = Type.Union([FamilyARequest, FamilyBRequest, FamilyCRequest]);

export type ChatCompletionsRequest = OpenAIChatRequest;

const ALL_MODELS = [...new Set<string>([...FAMILY_A_MODELS, ...BETA_FAMILY_MODELS, ...FAMILY_C_MODELS])];

const validatorsByModel: ReadonlyMap<string, ReadonlyArray<Validator<unknown>>> = (() => {
  const a = compileValidator(FamilyARequest);
  const b = compileValidator(FamilyBRequest);
  const c = compileValidator(FamilyCRequest);
  const map = new Map<string, Array<Validator<unknown>>>();
  const add = (models: readonly string[], validator: Validator<unknown>) => {
    for (const model of models) map.set(model, [...(map.get(model) ?? []), validator]);
  };
  add(FAMILY_A_MODELS, a);
  add(BETA_FAMILY_MODELS, b);
  add(FAMILY_C_MODELS, c);
  return map;
})();
/** A model the operator added (issue 21): family B's rules (multimodal content, the spec's ranges), any model id. */
const validateOperatorModel = compileValidator(withOpenModel(FamilyBRequest));

/**
 * Picks the family rules by `model`, then applies each (both B and C for their shared model); a
 * model the catalog serves beyond the spec's gets family B's (issue 21).
 */
export function validateChatCompletionsRequest(body: unknown, catalog?: ModelLookup): ChatCompletionsRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', 'Request body must be a JSON object', { param: 'body' });
  }
  const model = (body as { model?: unknown }).model;
  if (model === undefined) throw new GatewayError('GW_REQ_INVALID_PARAM', "'model' is required", { param: 'model' });
  if (typeof model !== 'string') throw new GatewayError('GW_REQ_INVALID_PARAM', "'model' must be of type string", { param: 'model' });
  const validators = validatorsByModel.get(model);
  if (!validators) {
    if (catalog?.servesModel('chat-completions', model)) return validateOperatorModel(body) as ChatCompletionsRequest;
    const refused = new GatewayError('GW_REQ_INVALID_PARAM', `'model' must be one of: ${ALL_MODELS.join(', ')}`, { param: 'model' });
    throw catalog ? withCatalogModels(refused, 'chat-completions', catalog) : refused;
  }
  for (const validate of validators) validate(body);
  return body as ChatCompletionsRequest;
}

export type FamilyARequestType = Static<typeof FamilyARequest>;
