import { Type, type TSchema } from 'typebox';
import type { AnthropicMessagesRequest } from '../../protocols/anthropic-messages/types.js';
import { compileValidator } from '../../validation/compile.js';

/**
 * /v1/messages in its Anthropic-native mode and /v1/messages/count_tokens: Anthropic's Messages
 * API request (anthropic.md "Request body"). The shapes of the blocks, tools and settings the
 * gateway reads are checked here, with Anthropic's ranges (temperature 0..1, budget_tokens ≥ 1024);
 * fields the gateway only passes on (`context_management`, `container`, new block types) are
 * left to the upstream: an Anthropic channel takes or refuses them, another channel's translator
 * refuses what it cannot carry.
 */
const CacheControl = Type.Object({ type: Type.Literal('ephemeral'), ttl: Type.Optional(Type.Union([Type.Literal('5m'), Type.Literal('1h')])) });
const cached = { cache_control: Type.Optional(Type.Union([CacheControl, Type.Null()])) };

const TextBlock = Type.Object({ type: Type.Literal('text'), text: Type.String(), ...cached });
const ImageSource = Type.Union([
  Type.Object({ type: Type.Literal('base64'), media_type: Type.String({ enum: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] }), data: Type.String() }),
  Type.Object({ type: Type.Literal('url'), url: Type.String({ minLength: 1 }) }),
]);
const ImageBlock = Type.Object({ type: Type.Literal('image'), source: ImageSource, ...cached });
const DocumentBlock = Type.Object({ type: Type.Literal('document'), source: Type.Object({ type: Type.String() }), ...cached });
const ToolUseBlock = Type.Object({ type: Type.Literal('tool_use'), id: Type.String({ minLength: 1 }), name: Type.String({ minLength: 1 }), input: Type.Object({}), ...cached });
const ToolResultBlock = Type.Object({
  type: Type.Literal('tool_result'),
  tool_use_id: Type.String({ minLength: 1 }),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }))])),
  is_error: Type.Optional(Type.Boolean()),
  ...cached,
});
const ThinkingBlock = Type.Object({ type: Type.Literal('thinking'), thinking: Type.String(), signature: Type.String() });
const RedactedThinkingBlock = Type.Object({ type: Type.Literal('redacted_thinking'), data: Type.String() });

const BLOCK_SHAPES: TSchema[] = [TextBlock, ImageBlock, DocumentBlock, ToolUseBlock, ToolResultBlock, ThinkingBlock, RedactedThinkingBlock];
const blockType = (shape: TSchema): string => (shape as unknown as { properties: { type: { const: string } } }).properties.type.const;

/**
 * A content block, as validated: its `type` picks the shape it must have (so the error names what
 * the client got wrong in that block); a type not listed here is left to the channel (Anthropic
 * adds block types often). OpenAPI 3.0 has no if/then, so the document shows the same as a union.
 */
const ContentBlock = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  allOf: BLOCK_SHAPES.map((shape) => ({ if: { properties: { type: { const: blockType(shape) } } }, then: shape })),
});
const ContentBlockDocument = Type.Union([
  ...BLOCK_SHAPES,
  Type.Object({ type: Type.String({ not: { enum: BLOCK_SHAPES.map(blockType) }, description: 'another block type, passed on to the channel' }) }),
]);

const messageOf = (block: TSchema) =>
  Type.Object({
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
    content: Type.Union([Type.String(), Type.Array(block)]),
  });

const Tool = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  // Client tools declare their input; server tools (`type: web_search_20250305`…) do not.
  input_schema: Type.Optional(Type.Object({})),
  type: Type.Optional(Type.String()),
  ...cached,
});

const ToolChoice = Type.Union([
  Type.Object({ type: Type.Literal('auto'), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }),
  Type.Object({ type: Type.Literal('any'), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }),
  Type.Object({ type: Type.Literal('tool'), name: Type.String({ minLength: 1 }), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }),
  Type.Object({ type: Type.Literal('none') }),
]);

// How thinking is shown (`summarized`, `omitted`, Claude Code's `updates`…): the channel's business.
const display = { display: Type.Optional(Type.String()) };
const Thinking = Type.Union([
  Type.Object({ type: Type.Literal('enabled'), budget_tokens: Type.Integer({ minimum: 1024 }), ...display }),
  Type.Object({ type: Type.Literal('adaptive'), ...display }),
  Type.Object({ type: Type.Literal('disabled') }),
]);

/** What both the message and the token-count requests carry. */
const promptFields = (block: TSchema) => ({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(messageOf(block), { minItems: 1 }),
  system: Type.Optional(Type.Union([Type.String(), Type.Array(TextBlock)])),
  tools: Type.Optional(Type.Array(Tool)),
  tool_choice: Type.Optional(ToolChoice),
  thinking: Type.Optional(Thinking),
  output_config: Type.Optional(Type.Object({ effort: Type.Optional(Type.String()), format: Type.Optional(Type.Object({ type: Type.String() })) })),
  context_management: Type.Optional(Type.Object({})),
});

const messagesRequest = (block: TSchema) =>
  Type.Object(
    {
      ...promptFields(block),
      max_tokens: Type.Integer({ minimum: 1 }),
      temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      top_k: Type.Optional(Type.Integer({ minimum: 0 })),
      stop_sequences: Type.Optional(Type.Array(Type.String())),
      stream: Type.Optional(Type.Boolean()),
      metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])) })),
      service_tier: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('standard_only')])),
    },
    { title: 'Anthropic Messages request (with anthropic-version)' },
  );
const countRequest = (block: TSchema) => Type.Object(promptFields(block), { title: 'Anthropic token-count request' });

/** The request bodies as the OpenAPI document shows them. */
export const AnthropicMessagesRequestSchema = messagesRequest(ContentBlockDocument);
export const AnthropicCountTokensSchema = countRequest(ContentBlockDocument);

const validateMessage = compileValidator(messagesRequest(ContentBlock));
const validateCount = compileValidator(countRequest(ContentBlock));

/** Throws a 400 naming the field and rule; the body is otherwise passed on as is. */
export const validateAnthropicMessagesRequest = (body: unknown): AnthropicMessagesRequest => validateMessage(body) as unknown as AnthropicMessagesRequest;

/** The prompt fields of a Messages request (an index signature would make Omit lose them). */
export type AnthropicCountTokensRequest = Pick<AnthropicMessagesRequest, 'model' | 'messages' | 'system' | 'tools' | 'tool_choice' | 'thinking'>;
export const validateAnthropicCountTokens = (body: unknown): AnthropicCountTokensRequest => validateCount(body) as unknown as AnthropicCountTokensRequest;
