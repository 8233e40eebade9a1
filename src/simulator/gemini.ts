import { formatSse } from '../gateway/sse/write.js';
import {
  GEMINI_IMAGE_ASPECT_RATIOS,
  GEMINI_IMAGE_SIZES,
  type GeminiContent,
  type GeminiGenerateContentRequest,
  type GeminiGenerateContentResponse,
  type GeminiGenerationConfig,
  type GeminiImageSize,
  type GeminiPart,
  type GeminiUsageMetadata,
} from '../protocols/gemini-generate/types.js';
import type { SimRequest, SimResponse, SimulatorSpec } from './server.js';
import { renderPng, sizeForRatio } from './png-image.js';
import { countTokens, simulateText, stableId, type SimulatedText } from './text.js';

const STATUS_BY_CODE: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

/** Google's error body `{error:{code,message,status}}` (gemini.md "Errors"). */
export const geminiErrorBody = (code: number, message: string, details?: unknown[]) => ({
  error: { code, message, status: STATUS_BY_CODE[code] ?? 'INTERNAL', ...(details ? { details } : {}) },
});

/**
 * Simulated image sizes: the long side is the tier's nominal size (512, 1024, 2048, 4096 px) and
 * the short side follows the ratio. Output token counts are the documented per-image costs of
 * gemini-3.1-flash-image (gemini.md "Image generation").
 */
const LONG_SIDE: Record<GeminiImageSize, number> = { '512': 512, '1K': 1024, '2K': 2048, '4K': 4096 };
const IMAGE_TOKENS: Record<GeminiImageSize, number> = { '512': 747, '1K': 1120, '2K': 1680, '4K': 2520 };
/** Tokens an input image costs in the simulator (Gemini bills a small image as 258 tokens). */
const INPUT_IMAGE_TOKENS = 258;
const PNG_CACHE_SIZE = 16;

const PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** A fake Gemini API (gemini.md): generateContent and streamGenerateContent, text and images. */
export function createGeminiSimulator(): SimulatorSpec {
  /** Encoded PNGs by "WxH"; the picture depends only on its size, so reuse is safe. */
  const pngs = new Map<string, string>();
  const pngBase64 = (width: number, height: number): string => {
    const key = `${width}x${height}`;
    let data = pngs.get(key);
    if (data === undefined) {
      data = renderPng(width, height).toString('base64');
      if (pngs.size >= PNG_CACHE_SIZE) pngs.delete(pngs.keys().next().value!);
      pngs.set(key, data);
    }
    return data;
  };

  return {
    vendor: 'gemini',
    errorBody: (status, message) => geminiErrorBody(status, message),
    async handle(req, res) {
      const match = req.method === 'POST' ? PATH.exec(req.path) : null;
      if (!match) return false;
      if (!checkKey(req, res)) return true;
      const model = decodeURIComponent(match[1]!);
      if (!model.startsWith('gemini-')) {
        res.json(404, geminiErrorBody(404, `models/${model} is not found for API version v1beta, or is not supported for ${match[2]}.`));
        return true;
      }
      const body = req.body as GeminiGenerateContentRequest | undefined;
      const problem = requestProblem(body);
      if (problem) {
        res.json(400, geminiErrorBody(400, problem));
        return true;
      }
      const chunks = generate(model, body!, pngBase64);
      if (typeof chunks === 'string') {
        res.json(400, geminiErrorBody(400, chunks));
      } else if (match[2] === 'generateContent') {
        res.json(200, mergeChunks(chunks));
      } else if (req.query.alt === 'sse') {
        // alt=sse: one `data:` event per chunk, no [DONE] (gemini.md "Endpoints and auth").
        await res.sse(chunks.map((data) => formatSse({ data })));
      } else {
        // Without alt the stream is one JSON array of the same chunks.
        res.json(200, chunks);
      }
      return true;
    },
  };
}

/** A missing key is 403, an unusable one 400 API_KEY_INVALID, as the real API answers (gemini.md "Errors"). */
function checkKey(req: SimRequest, res: SimResponse): boolean {
  const key = req.headers['x-goog-api-key'] ?? req.query.key;
  if (key === undefined) {
    res.json(403, geminiErrorBody(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."));
    return false;
  }
  if (key.trim() === '') {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }];
    res.json(400, geminiErrorBody(400, 'API key not valid. Please pass a valid API key.', details));
    return false;
  }
  return true;
}

function requestProblem(body: GeminiGenerateContentRequest | undefined): string | undefined {
  if (!body || typeof body !== 'object' || !Array.isArray(body.contents) || body.contents.length === 0) {
    return '* GenerateContentRequest.contents: contents is not specified';
  }
  if (body.contents.some((c) => !c || !Array.isArray(c.parts) || c.parts.length === 0)) {
    return '* GenerateContentRequest.contents: contents.parts must not be empty.';
  }
  return undefined;
}

const partsText = (parts: readonly GeminiPart[] | undefined): string =>
  (parts ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).filter(Boolean).join(' ');

const countInputImages = (contents: readonly GeminiContent[]): number =>
  contents.reduce((sum, c) => sum + c.parts.filter((p) => p.inlineData !== undefined || p.inline_data !== undefined).length, 0);

/** Reads a generationConfig key in either proto-JSON casing. */
function configValue<T>(config: Record<string, unknown> | undefined, camel: string, snake: string): T | undefined {
  return (config?.[camel] ?? config?.[snake]) as T | undefined;
}

type PngSource = (width: number, height: number) => string;
type Chunk = GeminiGenerateContentResponse;
/** What the model produces after its thoughts: chunks, their token count and modality. */
type Output = { chunks: Chunk[]; tokens: number; modality: 'TEXT' | 'IMAGE' };

const candidate = (parts: GeminiPart[], finishReason?: string): Chunk['candidates'] => [
  { content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 },
];

/** The response as stream chunks (usage on the last one, as Gemini sends it), or a 400 message. */
function generate(model: string, body: GeminiGenerateContentRequest, png: PngSource): Chunk[] | string {
  const config = (body.generationConfig ?? body.generation_config) as GeminiGenerationConfig | undefined;
  const isImageModel = model.includes('-image');
  const lastUser = [...body.contents].reverse().find((c) => c.role !== 'model') ?? body.contents[body.contents.length - 1]!;
  const system = body.systemInstruction ?? (body.system_instruction as GeminiGenerateContentRequest['systemInstruction']);
  const allText = [partsText(system?.parts), ...body.contents.map((c) => partsText(c.parts))].join('\n');
  const promptTokenCount = countTokens(allText) + INPUT_IMAGE_TOKENS * countInputImages(body.contents);
  const thinking = configValue<{ includeThoughts?: boolean; include_thoughts?: boolean }>(config, 'thinkingConfig', 'thinking_config');
  const text = simulateText({
    model,
    prompt: partsText(lastUser.parts),
    maxTokens: configValue<number>(config, 'maxOutputTokens', 'max_output_tokens'),
    stop: configValue<string[]>(config, 'stopSequences', 'stop_sequences'),
    withReasoning: isImageModel || thinking?.includeThoughts === true || thinking?.include_thoughts === true,
  });
  const output = isImageModel ? imageOutput(config, png) : textOutput(text);
  if (typeof output === 'string') return output;
  const chunks = [...groupPieces(text.reasoningPieces, 3).map((group) => ({ candidates: candidate([{ text: group, thought: true }]) })), ...output.chunks];
  const usage: GeminiUsageMetadata = {
    promptTokenCount,
    candidatesTokenCount: output.tokens,
    totalTokenCount: promptTokenCount + output.tokens + text.reasoningTokens,
    ...(text.reasoningTokens > 0 ? { thoughtsTokenCount: text.reasoningTokens } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokenCount }],
    candidatesTokensDetails: [{ modality: output.modality, tokenCount: output.tokens }],
  };
  const responseId = stableId('gemini', model, JSON.stringify(body)).slice(0, 22);
  return chunks.map((chunk, i) => ({ ...chunk, ...(i === chunks.length - 1 ? { usageMetadata: usage } : {}), modelVersion: model, responseId }));
}

function textOutput(text: SimulatedText): Output {
  const pieces = groupPieces(text.contentPieces, 4);
  const finishReason = text.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
  const chunks = pieces.map((piece, i) => ({ candidates: candidate([{ text: piece }], i === pieces.length - 1 ? finishReason : undefined) }));
  if (chunks.length === 0) chunks.push({ candidates: candidate([{ text: '' }], finishReason) });
  return { chunks, tokens: text.contentTokens, modality: 'TEXT' };
}

function imageOutput(config: GeminiGenerationConfig | undefined, png: PngSource): Output | string {
  const imageConfig = configValue<Record<string, unknown>>(config, 'imageConfig', 'image_config');
  const ratio = configValue<string>(imageConfig, 'aspectRatio', 'aspect_ratio') ?? '1:1';
  const size = configValue<string>(imageConfig, 'imageSize', 'image_size') ?? '1K';
  if (!(GEMINI_IMAGE_ASPECT_RATIOS as readonly string[]).includes(ratio)) return `Unsupported aspect ratio: ${ratio}`;
  if (!(GEMINI_IMAGE_SIZES as readonly string[]).includes(size)) return `Unsupported image size: ${size}`;
  const { width, height } = sizeForRatio(ratio, LONG_SIDE[size as GeminiImageSize])!;
  const image: GeminiPart = { inlineData: { mimeType: 'image/png', data: png(width, height) } };
  return { chunks: [{ candidates: candidate([image], 'STOP') }], tokens: IMAGE_TOKENS[size as GeminiImageSize], modality: 'IMAGE' };
}

/** Joins token pieces into at most `groups` chunks of text (Gemini streams sentence-sized chunks). */
function groupPieces(pieces: readonly string[], groups: number): string[] {
  if (pieces.length === 0) return [];
  const size = Math.ceil(pieces.length / groups);
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i += size) out.push(pieces.slice(i, i + size).join(''));
  return out;
}

/** The non-streamed answer: the chunks' parts concatenated per kind, the last chunk's finish and usage. */
function mergeChunks(chunks: readonly GeminiGenerateContentResponse[]): GeminiGenerateContentResponse {
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  const thought = parts.filter((p) => p.thought).map((p) => p.text).join('');
  const text = parts.filter((p) => !p.thought && typeof p.text === 'string').map((p) => p.text).join('');
  const merged: GeminiPart[] = [
    ...(thought ? [{ text: thought, thought: true }] : []),
    ...(text || !parts.some((p) => p.inlineData) ? [{ text }] : []),
    ...parts.filter((p) => p.inlineData),
  ];
  const last = chunks[chunks.length - 1]!;
  return {
    candidates: [{ content: { role: 'model', parts: merged }, finishReason: last.candidates?.[0]?.finishReason ?? 'STOP', index: 0 }],
    usageMetadata: last.usageMetadata,
    modelVersion: last.modelVersion,
    responseId: last.responseId,
  };
}
