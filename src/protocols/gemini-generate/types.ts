/**
 * Gemini generateContent wire types (shared/protocols/gemini.md). Requests are proto-JSON, so
 * the API accepts camelCase and snake_case keys; responses are camelCase. Only the fields the
 * gateway reads or writes are named; the index signatures carry the rest through untouched.
 */
export type GeminiRole = 'user' | 'model';

export interface GeminiInlineData {
  mimeType: string;
  /** Base64 bytes. */
  data: string;
}

export interface GeminiPart {
  text?: string;
  /** A thought summary (thinkingConfig.includeThoughts, or the image models' planning). */
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: GeminiInlineData;
  /** The snake_case spelling, accepted on requests only (gemini.md "Casing"). */
  inline_data?: { mime_type: string; data: string };
  /** A file the API fetches itself (Files API URI or a public URL). */
  fileData?: { mimeType?: string; fileUri: string };
  /** Sampling of a video part (js-genai types.ts `VideoMetadata`). */
  videoMetadata?: { fps?: number; startOffset?: string; endOffset?: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  [extra: string]: unknown;
}

/** A call the model asks for; `id` is filled by some models only (js-genai types.ts `FunctionCall`). */
export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

/** The result of a call, sent back in a user turn (js-genai types.ts `FunctionResponse`). */
export interface GeminiFunctionResponse {
  name: string;
  response: Record<string, unknown>;
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** Full JSON Schema; mutually exclusive with the OpenAPI-subset `parameters` (js-genai types.ts). */
  parametersJsonSchema?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
}

export interface GeminiTool {
  functionDeclarations?: GeminiFunctionDeclaration[];
  [extra: string]: unknown;
}

export type GeminiFunctionCallingMode = 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED';

export interface GeminiToolConfig {
  functionCallingConfig?: { mode?: GeminiFunctionCallingMode; allowedFunctionNames?: string[] };
  [extra: string]: unknown;
}

export interface GeminiContent {
  role?: GeminiRole;
  parts: GeminiPart[];
  [extra: string]: unknown;
}

export interface GeminiImageConfig {
  aspectRatio?: string;
  imageSize?: string;
  [extra: string]: unknown;
}

export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  candidateCount?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseJsonSchema?: unknown;
  responseModalities?: string[];
  imageConfig?: GeminiImageConfig;
  thinkingConfig?: { includeThoughts?: boolean; thinkingBudget?: number; thinkingLevel?: string; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { role?: string; parts: GeminiPart[]; [extra: string]: unknown };
  generationConfig?: GeminiGenerationConfig;
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  [extra: string]: unknown;
}

export interface GeminiCandidate {
  content?: { role?: GeminiRole; parts?: GeminiPart[]; [extra: string]: unknown };
  finishReason?: string;
  index?: number;
  [extra: string]: unknown;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  /** Part of promptTokenCount that came from cached content. */
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
  toolUsePromptTokenCount?: number;
  /** ModalityTokenCount lists: `{modality: 'TEXT' | 'IMAGE' | 'AUDIO' | 'VIDEO', tokenCount}`. */
  promptTokensDetails?: Array<{ modality?: string; tokenCount?: number }>;
  candidatesTokensDetails?: Array<{ modality?: string; tokenCount?: number }>;
  cacheTokensDetails?: Array<{ modality?: string; tokenCount?: number }>;
  trafficType?: string;
  [extra: string]: unknown;
}

export interface GeminiGenerateContentResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string; [extra: string]: unknown };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
  createTime?: string;
  [extra: string]: unknown;
}

export type GeminiMethod = 'generateContent' | 'streamGenerateContent';

/** Candidate.finishReason values of the SDK enum (gemini.md "finishReason values"). */
export type GeminiFinishReason =
  | 'FINISH_REASON_UNSPECIFIED' | 'STOP' | 'MAX_TOKENS' | 'SAFETY' | 'RECITATION' | 'LANGUAGE' | 'OTHER' | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT' | 'SPII' | 'MALFORMED_FUNCTION_CALL' | 'IMAGE_SAFETY' | 'UNEXPECTED_TOOL_CALL' | 'TOO_MANY_TOOL_CALLS'
  | 'IMAGE_PROHIBITED_CONTENT' | 'NO_IMAGE' | 'IMAGE_RECITATION' | 'IMAGE_OTHER';

/** Google's error body (gemini.md "Errors"). */
export interface GeminiErrorBody {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

/**
 * imageConfig values of gemini-3.1-flash-image (gemini.md "Image generation"): the preview
 * page's 14 ratios plus `9:21`, which the GA model page adds (the gateway calls the GA id).
 */
export const GEMINI_IMAGE_ASPECT_RATIOS = [
  '1:1', '1:4', '1:8', '2:3', '3:2', '3:4', '4:1', '4:3', '4:5', '5:4', '8:1', '9:16', '16:9', '21:9', '9:21',
] as const;
export const GEMINI_IMAGE_SIZES = ['512', '1K', '2K', '4K'] as const;
export type GeminiImageSize = (typeof GEMINI_IMAGE_SIZES)[number];

/** A native generate-content request: the method comes from the path, the body is Gemini's own. */
export interface GenerateContentCall {
  method: GeminiMethod;
  body: GeminiGenerateContentRequest;
}
