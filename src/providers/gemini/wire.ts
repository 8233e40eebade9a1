import { GatewayError } from '../../errors.js';
import { upstreamStatusError } from '../../providers/upstream-errors.js';
import type { GeminiGenerateContentResponse, GeminiPart, GeminiUsageMetadata } from '../../protocols/gemini-generate/types.js';
import { tokenCount } from '../../protocols/openai-chat/types.js';
import type { Usage } from '../../contracts/usage.js';

/** The parts of a Google error body the gateway reads (gemini.md "Errors"). */
interface GoogleErrorInfo {
  code: number | undefined;
  message: string | undefined;
  status: string | undefined;
  reasons: string[];
  /** `RetryInfo.retryDelay` in seconds, when the error carries one (quota errors do). */
  retryDelaySeconds: number | undefined;
}

/** Reads `{error:{code,message,status,details}}`; non-SSE streams wrap it in `[ ]` (gemini.md). */
export function readGoogleError(body: unknown): GoogleErrorInfo {
  const record = Array.isArray(body) ? (body[0] as unknown) : body;
  const error = record && typeof record === 'object' ? (record as { error?: unknown }).error : undefined;
  if (!error || typeof error !== 'object') {
    // Not Google's JSON (a proxy's page, a bare text): nothing of it reaches the client (issue 14).
    return { code: undefined, message: undefined, status: undefined, reasons: [], retryDelaySeconds: undefined };
  }
  const e = error as { code?: unknown; message?: unknown; status?: unknown; details?: unknown };
  const details = Array.isArray(e.details) ? (e.details as unknown[]).filter((d): d is Record<string, unknown> => !!d && typeof d === 'object') : [];
  const reasons = details.flatMap((d) => (typeof d.reason === 'string' ? [d.reason] : []));
  return {
    retryDelaySeconds: retryDelayOf(details),
    code: typeof e.code === 'number' ? e.code : undefined,
    message: typeof e.message === 'string' ? e.message : undefined,
    status: typeof e.status === 'string' ? e.status : undefined,
    reasons,
  };
}

/**
 * Gemini answers quota errors with a bare 429 (no Retry-After header); the delay it wants, if
 * any, is a protobuf Duration string (`"37s"`, `"1.5s"`) in a `google.rpc.RetryInfo` detail.
 */
function retryDelayOf(details: ReadonlyArray<Record<string, unknown>>): number | undefined {
  for (const detail of details) {
    if (typeof detail['@type'] !== 'string' || !detail['@type'].endsWith('google.rpc.RetryInfo')) continue;
    const match = typeof detail.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** Maps a Gemini error to ours. Gemini's own statuses and messages never reach the client raw. */
export function geminiErrorToGateway(status: number, body: unknown): GatewayError {
  const info = readGoogleError(body);
  // A rejected key is 400 INVALID_ARGUMENT with reason API_KEY_INVALID (gemini.md "Errors"):
  // the channel's credential is wrong, not the client's request.
  if (info.reasons.includes('API_KEY_INVALID')) return upstreamStatusError(401, info.message);
  // Billing or region preconditions are the channel's problem too.
  if (info.status === 'FAILED_PRECONDITION') return upstreamStatusError(502, info.message);
  const error = upstreamStatusError(status, info.message);
  if (info.retryDelaySeconds === undefined) return error;
  return new GatewayError(error.code, error.message, { retryAfterSeconds: info.retryDelaySeconds, param: error.param });
}

/** One `data:` event of an `alt=sse` stream: a whole GenerateContentResponse, or an error body. */
export function parseGeminiChunk(data: string): GeminiGenerateContentResponse {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not JSON');
  }
  if (!chunk || typeof chunk !== 'object' || Array.isArray(chunk)) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not an object');
  }
  if ('error' in chunk) throw geminiErrorToGateway(readGoogleError(chunk).code ?? 502, chunk);
  return chunk as GeminiGenerateContentResponse;
}

export function asGeminiResponse(res: unknown): GeminiGenerateContentResponse {
  if (!res || typeof res !== 'object' || Array.isArray(res)) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not a GenerateContentResponse');
  }
  return res as GeminiGenerateContentResponse;
}

/** Output images of a response: inline image parts that are not interim thought images. */
export function outputImageParts(response: GeminiGenerateContentResponse): GeminiPart[] {
  return (response.candidates ?? []).flatMap((candidate) =>
    (candidate.content?.parts ?? []).filter((part) => part.thought !== true && part.inlineData?.mimeType.startsWith('image/') === true),
  );
}

/**
 * Gemini counts thoughts apart from candidates; we count them inside completion tokens, as OpenAI
 * does (both are billed at the output price). Tool-use prompt tokens are billed input, so they
 * join the prompt. `cachedContentTokenCount` is part of `promptTokenCount` (gemini.md); image
 * tokens come from the modality breakdowns (an image model's output images are billed by them).
 */
export function usageFromGemini(meta: GeminiUsageMetadata | undefined, images: number): Usage {
  const promptTokens = (meta?.promptTokenCount ?? 0) + (meta?.toolUsePromptTokenCount ?? 0);
  const reasoningTokens = meta?.thoughtsTokenCount ?? 0;
  const completionTokens = (meta?.candidatesTokenCount ?? 0) + reasoningTokens;
  const usage: Usage = { promptTokens, completionTokens, reasoningTokens, totalTokens: meta?.totalTokenCount ?? promptTokens + completionTokens };
  const cached = tokenCount(meta?.cachedContentTokenCount);
  const imageIn = imageTokensOf(meta?.promptTokensDetails);
  const imageOut = imageTokensOf(meta?.candidatesTokensDetails);
  if (cached > 0) usage.cachedTokens = cached;
  if (imageIn > 0) usage.imageInputTokens = imageIn;
  if (imageOut > 0) usage.imageOutputTokens = imageOut;
  if (images > 0) usage.images = images;
  return usage;
}

/** The IMAGE modality's tokens of a ModalityTokenCount list. */
function imageTokensOf(details: unknown): number {
  if (!Array.isArray(details)) return 0;
  let sum = 0;
  for (const entry of details as Array<{ modality?: unknown; tokenCount?: unknown }>) if (entry?.modality === 'IMAGE') sum += tokenCount(entry.tokenCount);
  return sum;
}

/** Finish and block reasons that mean a safety or policy filter stopped the output (gemini.md). */
export const FILTER_REASONS: ReadonlySet<string> = new Set([
  'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION',
]);
