/**
 * The input items of a Responses request that agents send back each turn (openai.md §2; the
 * `ResponseInputItem` union of the official SDK, openai v7 `resources/responses/responses.d.ts`).
 * Codex and the OpenAI Agents SDK resend the whole history without `previous_response_id`:
 * their own messages, the model's reasoning (with `encrypted_content`), its assistant messages,
 * its tool calls and the tools' outputs.
 */

export type OpenAIResponsesRole = 'user' | 'assistant' | 'system' | 'developer';
export type OpenAIItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type OpenAIResponsesInputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail?: string }
  | { type: 'input_video'; video_url: string; fps?: number }
  | { type: 'input_file'; file_url: string; filename?: string };

/** What an assistant message of an earlier turn holds (`ResponseOutputMessage.content`). */
export type OpenAIResponsesAssistantPart = { type: 'output_text'; text: string; annotations?: unknown[]; [extra: string]: unknown } | { type: 'refusal'; refusal: string };

export interface OpenAIResponsesInputMessage {
  type?: 'message';
  id?: string;
  status?: OpenAIItemStatus;
  role: OpenAIResponsesRole;
  /** Assistant messages may also hold `output_text` and `refusal` parts (the model's own earlier output). */
  content: string | Array<OpenAIResponsesInputPart | OpenAIResponsesAssistantPart>;
  [extra: string]: unknown;
}

/** The model's reasoning of an earlier turn; `encrypted_content` only its own vendor can read. */
export interface OpenAIReasoningInputItem {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  content?: Array<{ type: 'reasoning_text'; text: string }> | null;
  encrypted_content?: string | null;
  status?: OpenAIItemStatus;
  [extra: string]: unknown;
}

/** A call of a function tool; `namespace` names the namespace tool that declared it. */
export interface OpenAIFunctionCallInputItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  namespace?: string;
  id?: string;
  status?: OpenAIItemStatus;
  [extra: string]: unknown;
}

export type OpenAIToolOutput = string | Array<{ type: string; text?: string; [extra: string]: unknown }>;

export interface OpenAIFunctionCallOutputItem {
  type: 'function_call_output';
  call_id: string;
  output: OpenAIToolOutput;
  id?: string | null;
  status?: OpenAIItemStatus | null;
  [extra: string]: unknown;
}

/** A call of a custom (free-form input) tool and its output. */
export interface OpenAICustomToolCallItem {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  input: string;
  namespace?: string;
  id?: string;
  [extra: string]: unknown;
}

export interface OpenAICustomToolCallOutputItem {
  type: 'custom_tool_call_output';
  call_id: string;
  output: OpenAIToolOutput;
  id?: string;
  [extra: string]: unknown;
}

/** A web search the model ran with the hosted `web_search` tool (`ResponseFunctionWebSearch`). */
export interface OpenAIWebSearchCallItem {
  type: 'web_search_call';
  id?: string;
  status?: 'in_progress' | 'searching' | 'completed' | 'failed' | 'incomplete';
  action?: Record<string, unknown>;
  [extra: string]: unknown;
}

export type OpenAIResponsesInputItem =
  | OpenAIResponsesInputMessage
  | OpenAIReasoningInputItem
  | OpenAIFunctionCallInputItem
  | OpenAIFunctionCallOutputItem
  | OpenAICustomToolCallItem
  | OpenAICustomToolCallOutputItem
  | OpenAIWebSearchCallItem;

export const isInputMessage = (item: OpenAIResponsesInputItem): item is OpenAIResponsesInputMessage => item.type === undefined || item.type === 'message';

/** Tools of a Responses request (`Tool` union of the SDK) that the gateway reads. */
export interface OpenAIResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  [extra: string]: unknown;
}

export interface OpenAIResponsesCustomTool {
  type: 'custom';
  name: string;
  description?: string;
  format?: { type: 'text' } | { type: 'grammar'; syntax: string; definition: string };
  [extra: string]: unknown;
}

/** A group of function (and custom) tools; the model's calls name the group in `namespace`. */
export interface OpenAIResponsesNamespaceTool {
  type: 'namespace';
  name: string;
  description?: string;
  tools: Array<OpenAIResponsesFunctionTool | OpenAIResponsesCustomTool>;
  [extra: string]: unknown;
}

/** The hosted web search tool, under its current and its preview names. */
export const OPENAI_WEB_SEARCH_TOOL_TYPES = ['web_search', 'web_search_2025_08_26', 'web_search_preview', 'web_search_preview_2025_03_11'] as const;

export interface OpenAIResponsesWebSearchTool {
  type: (typeof OPENAI_WEB_SEARCH_TOOL_TYPES)[number];
  search_context_size?: 'low' | 'medium' | 'high';
  filters?: { allowed_domains?: string[] | null } | null;
  user_location?: Record<string, unknown> | null;
  external_web_access?: boolean;
  [extra: string]: unknown;
}
