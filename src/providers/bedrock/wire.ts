/** Bedrock Converse wire types (clouds.md §2): the fields the gateway reads or writes. */

export type ConverseContentBlock =
  | { text: string }
  | { image: { format: ConverseImageFormat; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: Array<{ text: string } | { json: unknown }>; status?: 'success' | 'error' } }
  | { reasoningContent: { reasoningText?: { text: string; signature?: string }; redactedContent?: string } }
  | { cachePoint: { type: 'default' } };

export type ConverseImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseTool {
  toolSpec: { name: string; description?: string; inputSchema: { json: unknown } };
}

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: Array<{ text: string }>;
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseTool[]; toolChoice?: ConverseToolChoice };
  /** Model-specific fields Converse does not name (Claude's `thinking`, `top_k`). */
  additionalModelRequestFields?: Record<string, unknown>;
}

export type ConverseStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'malformed_model_output'
  | 'malformed_tool_use'
  | 'model_context_window_exceeded';

export interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

export interface ConverseResponse {
  output?: { message?: { role: 'assistant'; content: ConverseContentBlock[] } };
  stopReason?: string;
  usage?: ConverseUsage;
}

/** ConverseStream's event payloads, by event name (the event-stream `:event-type`). */
export interface ConverseStreamEvents {
  messageStart: { role?: string };
  contentBlockStart: { contentBlockIndex: number; start?: { toolUse?: { toolUseId: string; name: string } } };
  contentBlockDelta: {
    contentBlockIndex: number;
    delta?: { text?: string; toolUse?: { input?: string }; reasoningContent?: { text?: string; signature?: string; redactedContent?: string } };
  };
  contentBlockStop: { contentBlockIndex: number };
  messageStop: { stopReason?: string };
  metadata: { usage?: ConverseUsage };
}
