/**
 * Anthropic Messages wire types (docs/protocols/anthropic.md, from anthropic-sdk-typescript
 * `src/resources/messages/messages.ts`): what the Anthropic channels speak, and what
 * /v1/messages speaks in its Anthropic-native mode. Only the fields the gateway reads or writes
 * are named; index signatures carry the rest (`cache_control`, `citations`…) through untouched.
 */

/**
 * `system` in `messages` is a newer addition of the API (the SDK's MessageParam lists it); Claude
 * Code 2.1 puts its environment context there, right after the prompt.
 */
export type AnthropicRole = 'user' | 'assistant' | 'system';

/** `{type: "ephemeral", ttl?: "5m" | "1h"}` on blocks, tools and system text: a prompt-cache breakpoint. */
export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  citations?: unknown;
  cache_control?: AnthropicCacheControl | null;
}

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl | null;
}

/** A PDF or plain-text document (base64, URL or inline text source). */
export interface AnthropicDocumentBlock {
  type: 'document';
  source:
    | { type: 'base64'; media_type: string; data: string }
    | { type: 'url'; url: string }
    | { type: 'text'; media_type: string; data: string }
    | { type: 'content'; content: string | AnthropicTextBlock[] };
  title?: string | null;
  context?: string | null;
  cache_control?: AnthropicCacheControl | null;
  [extra: string]: unknown;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  /** Text, or text and image (and document) blocks; may be absent for an empty result. */
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** Blocks a request may carry in `messages[].content`. */
export type AnthropicContentBlockParam =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

/** Blocks a response may carry; other (server-tool) block types are skipped at run time. */
export type AnthropicContentBlock = AnthropicTextBlock | AnthropicThinkingBlock | AnthropicRedactedThinkingBlock | AnthropicToolUseBlock;

export interface AnthropicMessageParam {
  role: AnthropicRole;
  content: string | AnthropicContentBlockParam[];
}

/** A client tool; server tools (`web_search_20250305`, …) carry a `type` and no input_schema. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  type?: string;
  cache_control?: AnthropicCacheControl | null;
  [extra: string]: unknown;
}

/** `disable_parallel_tool_use` asks for at most one tool_use block (not valid with `none`). */
export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'none' }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

/** Structured output: the reply's text is JSON valid for the schema (anthropic.md request field `output_config`). */
export interface AnthropicOutputConfig {
  format?: { type: 'json_schema'; schema: unknown };
  /** How hard the model works (`low`…`max`); Claude Code sends it with adaptive thinking. */
  effort?: string;
}

/** `enabled` with a budget, `adaptive` (the model decides), or `disabled`. */
export type AnthropicThinkingConfig =
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' }
  | { type: 'disabled' };

export interface AnthropicMessagesRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string | AnthropicTextBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  metadata?: { user_id?: string };
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: AnthropicThinkingConfig | Record<string, unknown>;
  output_config?: AnthropicOutputConfig;
  service_tier?: string;
  context_management?: unknown;
  [extra: string]: unknown;
}

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  service_tier?: string | null;
  [extra: string]: unknown;
}

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
  [extra: string]: unknown;
}

/** MessageDeltaUsage: CUMULATIVE totals; only `output_tokens` is always present. */
export interface AnthropicMessageDeltaUsage {
  output_tokens: number;
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  [extra: string]: unknown;
}

export type AnthropicBlockDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'citations_delta'; citation: unknown };

export type AnthropicMessagesEvent =
  | { type: 'message_start'; message: AnthropicMessage }
  | { type: 'content_block_start'; index: number; content_block: AnthropicContentBlock }
  | { type: 'content_block_delta'; index: number; delta: AnthropicBlockDelta }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason: AnthropicStopReason | null; stop_sequence: string | null }; usage: AnthropicMessageDeltaUsage }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | { type: 'error'; error: { type: AnthropicErrorType; message: string } };

/** The SDK's ErrorType union plus `request_too_large` from the errors page. */
export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
  request_id: string | null;
}

/** HTTP status of each error type (https://platform.claude.com/docs/en/api/errors). */
export const ANTHROPIC_STATUS_BY_ERROR_TYPE = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
} as const satisfies Record<AnthropicErrorType, number>;
