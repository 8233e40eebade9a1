import { Type, type Static, type TSchema } from 'typebox';
import { LIMITS } from '../../validation/limits.js';
import { discriminatedUnion } from '../../validation/discriminated-union.js';
import type { OpenAIResponsesInputItem } from '../../protocols/openai-responses/input-items.js';

/**
 * The items `input` may hold (spec §3 for messages and their parts; the rest as OpenAI's
 * Responses API defines them, `ResponseInputItem` in the official SDK), so an agent can resend
 * its whole history each turn: reasoning items, assistant messages, function and custom tool
 * calls with their outputs, web search calls. Any other item type is a 400 naming it.
 */
const enumOf = (values: readonly string[]) => Type.Unsafe<string>({ type: 'string', enum: [...values] });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** "A string or an array" as one schema, so Ajv names the rule the client broke rather than a union branch. */
export const stringOrArray = <T extends TSchema>(items: T, options: { minLength?: number; minItems?: number } = {}) =>
  Type.Unsafe<string | Array<Static<T>>>({ type: ['string', 'array'], items, ...options });

export const InputTextPart = Type.Object({ type: Type.Literal('input_text'), text: Type.String() });
export const InputImagePart = Type.Object({ type: Type.Literal('input_image'), image_url: Type.String({ minLength: 1 }) });
export const InputVideoPart = Type.Object({
  type: Type.Literal('input_video'),
  video_url: Type.String({ minLength: 1 }),
  fps: Type.Optional(Type.Number(LIMITS.fps)),
});
export const InputFilePart = Type.Object({ type: Type.Literal('input_file'), file_url: Type.String({ minLength: 1 }) });
const OutputTextPart = Type.Object({ type: Type.Literal('output_text'), text: Type.String(), annotations: Type.Optional(Type.Array(Type.Unknown())) });
const RefusalPart = Type.Object({ type: Type.Literal('refusal'), refusal: Type.String() });

const INPUT_PARTS = [InputTextPart, InputImagePart, InputVideoPart, InputFilePart];
/** An assistant message of an earlier turn also holds the model's own output parts (ResponseOutputMessage). */
const AnyPart = discriminatedUnion('type', [...INPUT_PARTS, OutputTextPart, RefusalPart]);

const ItemStatus = enumOf(['in_progress', 'completed', 'incomplete']);

const INPUT_PART_TYPES = INPUT_PARTS.map((part) => part.properties.type.const);

/**
 * A message. Its parts are checked against every part type, then, for user, system and developer
 * messages, against the input types only: `output_text` and `refusal` are the model's own output,
 * found only in assistant messages of earlier turns. The role rule is a condition the common
 * message passes, and an enum rather than a second parts union, so the validator stays small (see
 * `defRef`).
 */
export const InputMessage = Type.Object(
  {
    type: Type.Optional(Type.Literal('message')),
    id: Type.Optional(Type.String()),
    status: Type.Optional(ItemStatus),
    role: enumOf(['user', 'assistant', 'system', 'developer']),
    content: stringOrArray(AnyPart),
  },
  {
    if: { properties: { role: { enum: ['user', 'system', 'developer'] } } },
    then: { properties: { content: { type: ['string', 'array'], items: { properties: { type: { enum: INPUT_PART_TYPES } } } } } },
  },
);

const ReasoningItem = Type.Object({
  type: Type.Literal('reasoning'),
  id: Type.String({ minLength: 1 }),
  summary: Type.Array(Type.Object({ type: Type.Literal('summary_text'), text: Type.String() })),
  content: Type.Optional(nullable(Type.Array(Type.Object({ type: Type.Literal('reasoning_text'), text: Type.String() })))),
  encrypted_content: Type.Optional(nullable(Type.String())),
  status: Type.Optional(ItemStatus),
});

/**
 * A schema of the request's `$defs` (INPUT_ITEM_DEFS, TOOL_DEFS). Ajv inlines a referenced schema
 * unless it holds a reference itself; the definitions referenced this way each hold one, so each is
 * a validator function of its own, called only for the items and tools that need it. Inlined, they
 * made the request's validator too large for V8 to optimise: 20 to 30 times slower for each
 * message of a 30 MB input of a million messages.
 */
export const defRef = <T = unknown>(name: string) => Type.Unsafe<T>({ $ref: `#/$defs/${name}` });

/** A tool's output: text, or a list of input parts (text, image, file). */
const ToolOutput = Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }))]);

/** A tool call of an earlier turn and its result, as agent loops send them back (openai.md §2). */
export const FunctionCallItem = Type.Object({
  type: Type.Literal('function_call'),
  call_id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  arguments: Type.String(),
  namespace: Type.Optional(Type.String({ minLength: 1 })),
  id: Type.Optional(Type.String()),
  status: Type.Optional(ItemStatus),
});
export const FunctionCallOutputItem = Type.Object({
  type: Type.Literal('function_call_output'),
  call_id: Type.String({ minLength: 1 }),
  output: defRef('ToolOutput'),
  id: Type.Optional(nullable(Type.String())),
  status: Type.Optional(nullable(ItemStatus)),
});
const CustomToolCallItem = Type.Object({
  type: Type.Literal('custom_tool_call'),
  call_id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  input: Type.String(),
  namespace: Type.Optional(Type.String({ minLength: 1 })),
  id: Type.Optional(Type.String()),
});
const CustomToolCallOutputItem = Type.Object({
  type: Type.Literal('custom_tool_call_output'),
  call_id: Type.String({ minLength: 1 }),
  output: defRef('ToolOutput'),
  id: Type.Optional(Type.String()),
});
const WebSearchCallItem = Type.Object({
  type: Type.Literal('web_search_call'),
  id: Type.Optional(Type.String()),
  status: Type.Optional(enumOf(['in_progress', 'searching', 'completed', 'failed', 'incomplete'])),
  action: Type.Optional(Type.Object({ type: Type.String() })),
});

const TypedItem = discriminatedUnion('type', [
  Type.Object({ type: Type.Literal('message') }),
  ReasoningItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  CustomToolCallItem,
  CustomToolCallOutputItem,
  WebSearchCallItem,
]);

/**
 * An item without `type`, or of type `message`, is a message (OpenAI's EasyInputMessage), checked
 * inline; any other type picks its shape (TypedItem, a function of its own) and names the rule the
 * client broke ("'input[3].call_id' is required"). Messages pass the condition rather than fail it.
 */
export const InputItem = Type.Unsafe<OpenAIResponsesInputItem>({
  type: 'object',
  if: { properties: { type: { const: 'message' } } },
  then: InputMessage,
  else: defRef('TypedItem'),
});

export const INPUT_ITEM_DEFS = { TypedItem, ToolOutput };
