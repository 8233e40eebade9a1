import { Type, type TSchema } from 'typebox';
import { discriminatedUnion } from '../../validation/discriminated-union.js';
import { OPENAI_WEB_SEARCH_TOOL_TYPES } from '../../protocols/openai-responses/input-items.js';
import { defRef } from './input-item-schemas.js';

/**
 * `tools` and `tool_choice` of POST /v1/responses, as OpenAI's Responses API defines the kinds an
 * agent sends (`function`, `custom`, `namespace`, `web_search` and its preview names). Other tool
 * types are not checked here: Responses upstreams have their own (Ark's `mcp`, `image_process`)
 * and get them as sent; the chat translation refuses them with a 400 naming the tool.
 */
const enumOf = (values: readonly string[]) => Type.Unsafe<string>({ type: 'string', enum: [...values] });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const FunctionTool = Type.Object({
  type: Type.Literal('function'),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(nullable(Type.String())),
  parameters: Type.Optional(nullable(Type.Object({}))),
  strict: Type.Optional(nullable(Type.Boolean())),
});

const CustomToolFormat = discriminatedUnion('type', [
  Type.Object({ type: Type.Literal('text') }),
  Type.Object({ type: Type.Literal('grammar'), syntax: enumOf(['lark', 'regex']), definition: Type.String() }),
]);
const CustomTool = Type.Object({
  type: Type.Literal('custom'),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  format: Type.Optional(CustomToolFormat),
});

/** A group of function and custom tools; the model's calls carry the group's name in `namespace`. */
const NamespaceMember = discriminatedUnion('type', [FunctionTool, CustomTool]);
const NamespaceTool = Type.Object({
  type: Type.Literal('namespace'),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  tools: Type.Array(defRef('NamespaceMember'), { minItems: 1 }),
});

const WebSearchTool = Type.Object({
  type: enumOf(OPENAI_WEB_SEARCH_TOOL_TYPES),
  search_context_size: Type.Optional(enumOf(['low', 'medium', 'high'])),
  filters: Type.Optional(nullable(Type.Object({ allowed_domains: Type.Optional(nullable(Type.Array(Type.String()))) }))),
  user_location: Type.Optional(nullable(Type.Object({}))),
  external_web_access: Type.Optional(Type.Boolean()),
});

/** Each known kind checked by its own shape; `type` is required of every tool. */
const checkedKinds: Array<[readonly string[], TSchema]> = [
  [['function'], FunctionTool],
  [['custom'], CustomTool],
  [['namespace'], NamespaceTool],
  [OPENAI_WEB_SEARCH_TOOL_TYPES, WebSearchTool],
];
const Tool = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  allOf: checkedKinds.map(([types, schema]) => ({ if: { properties: { type: { enum: [...types] } } }, then: schema })),
});

/** A tool, checked by a validator function of its own (`defRef`, input-item-schemas.ts). */
export const ResponsesTool = defRef<Record<string, unknown>>('Tool');
export const TOOL_DEFS = { Tool, NamespaceMember };

/** `auto` / `none` / `required`, or an object naming what to call (a function by `name`, a hosted tool by type). */
export const ResponsesToolChoice = Type.Union([
  enumOf(['none', 'auto', 'required']),
  Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string' } },
    allOf: [
      { if: { properties: { type: { enum: ['function', 'custom'] } } }, then: { required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } },
    ],
  }),
]);
