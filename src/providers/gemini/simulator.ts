import { formatSse } from '../../sse/write.js';
import type { PromptCache } from '../../simulator/prompt-cache.js';
import {
  GEMINI_IMAGE_ASPECT_RATIOS,
  GEMINI_IMAGE_SIZES,
  type GeminiContent,
  type GeminiFunctionCall,
  type GeminiGenerateContentRequest,
  type GeminiGenerateContentResponse,
  type GeminiGenerationConfig,
  type GeminiImageSize,
  type GeminiPart,
  type GeminiUsageMetadata,
} from '../../protocols/gemini-generate/types.js';
import type { SimRequest, SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { renderPng, sizeForRatio } from '../../simulator/png-image.js';
import { countTokens, simulateText, stableId, tokenPieces, type SimulatedText } from '../../simulator/text.js';
import { answerPromptAfterTools, quotedRequest } from '../../simulator/tool-calls.js';
import { structuredContent } from '../../simulator/structured-output.js';
import { answerGeminiEmbed, EMBED_PATH } from './simulator-embed.js';
import { configValue, countParts, logprobsResult, outputFormatOf, partsText, pickFunctionCalls } from './simulator-agent.js';
import { geminiBatchesSimHandler } from './simulator-batches.js';

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

  // Batch mode (issue 46): each request is answered by this simulator's own generateContent.
  const batches = geminiBatchesSimHandler(geminiErrorBody, (req, res) => spec.handle(req, res));
  const spec: SimulatorSpec = {
    vendor: 'gemini',
    errorBody: (status, message) => geminiErrorBody(status, message),
    async handle(req, res) {
      if (req.path.includes(':batchGenerateContent') || req.path.startsWith('/v1beta/batches/')) return checkKey(req, res) ? batches(req, res) : true;
      const match = req.method === 'POST' ? PATH.exec(req.path) : null;
      if (!match) {
        if (!EMBED_PATH.test(req.path)) return false;
        return checkKey(req, res) ? ((await answerGeminiEmbed(req, res, geminiErrorBody)) ?? false) : true;
      }
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
      const chunks = generate(model, body!, pngBase64, req.promptCache);
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
  return spec;
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
  if (body.contents.some((c) => c.role !== undefined && c.role !== 'user' && c.role !== 'model')) {
    return 'Please use a valid role: user, model.';
  }
  return functionTurnProblem(body.contents);
}

/** The API's turn rules for function calling, with its own messages (seen in issue threads). */
function functionTurnProblem(contents: readonly GeminiContent[]): string | undefined {
  for (let i = 0; i < contents.length; i++) {
    const responses = countParts(contents[i], 'functionResponse');
    if (responses > 0 && (contents[i - 1]?.role !== 'model' || countParts(contents[i - 1], 'functionCall') !== responses)) {
      return 'Please ensure that function response turn comes immediately after a function call turn. And the number of function response parts should be equal to number of function call parts of the function call turn.';
    }
    if (countParts(contents[i], 'functionCall') > 0 && i > 0 && contents[i - 1]!.role === 'model') {
      return 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.';
    }
  }
  return undefined;
}

/** Gemini 2.5 and later refuse any penalty that is not 0 (vercel/ai#8943, google-gemini/cookbook#1290). */
function penaltyProblem(model: string, config: GeminiGenerationConfig | undefined): string | undefined {
  const penalties = ['presencePenalty', 'presence_penalty', 'frequencyPenalty', 'frequency_penalty'].map((key) => config?.[key]);
  const hasPenalty = penalties.some((value) => typeof value === 'number' && value !== 0);
  return hasPenalty && !model.startsWith('gemini-2.0') ? `Penalty is not enabled for models/${model}` : undefined;
}

/** What the model reads of a turn: its text, plus the results of function calls as JSON. */
const turnText = (parts: readonly GeminiPart[]): string =>
  [partsText(parts), ...parts.flatMap((p) => (p.functionResponse ? [JSON.stringify(p.functionResponse.response)] : []))].filter(Boolean).join(' ');

const countInputImages = (contents: readonly GeminiContent[]): number =>
  contents.reduce((sum, c) => sum + c.parts.filter((p) => p.inlineData !== undefined || p.inline_data !== undefined).length, 0);

type PngSource = (width: number, height: number) => string;
type Chunk = GeminiGenerateContentResponse;
/** What the model produces after its thoughts: chunks, their token count and modality. */
type Output = { chunks: Chunk[]; tokens: number; modality: 'TEXT' | 'IMAGE' };

type Candidate = NonNullable<Chunk['candidates']>[number];
const candidate = (parts: GeminiPart[], finishReason?: string): Candidate => ({ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 });
/** Gemini 2.x text models take 1..8 candidates (generationConfig.candidateCount). */
const MAX_CANDIDATES = 8;

/** The response as stream chunks (usage on the last one, as Gemini sends it), or a 400 message. */
function generate(model: string, body: GeminiGenerateContentRequest, png: PngSource, promptCache?: PromptCache): Chunk[] | string {
  const config = (body.generationConfig ?? body.generation_config) as GeminiGenerationConfig | undefined;
  const isImageModel = model.includes('-image');
  const count = configValue<number>(config, 'candidateCount', 'candidate_count') ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > (isImageModel ? 1 : MAX_CANDIDATES)) {
    return count > 1 ? `Multiple candidates is not enabled for models/${model}` : '* GenerationConfig.candidate_count: must be at least 1';
  }
  const penalty = penaltyProblem(model, config);
  if (penalty) return penalty;
  const lastUser = [...body.contents].reverse().find((c) => c.role !== 'model') ?? body.contents[body.contents.length - 1]!;
  const system = body.systemInstruction ?? (body.system_instruction as GeminiGenerateContentRequest['systemInstruction']);
  const allText = [partsText(system?.parts), ...body.contents.map((c) => turnText(c.parts))].join('\n');
  const promptTokenCount = countTokens(allText) + INPUT_IMAGE_TOKENS * countInputImages(body.contents);
  const thinking = configValue<{ includeThoughts?: boolean; include_thoughts?: boolean }>(config, 'thinkingConfig', 'thinking_config');
  const calls = isImageModel ? [] : pickFunctionCalls(body, lastUser);
  const format = outputFormatOf(config);
  const results = lastUser.parts.flatMap((p) => (p.functionResponse ? [JSON.stringify(p.functionResponse.response)] : []));
  const question = [...body.contents].reverse().find((c) => c.role !== 'model' && countParts(c, 'functionResponse') === 0);
  const perCandidate: Array<{ chunks: Chunk[]; output: Output; reasoningTokens: number }> = [];
  for (let variant = 0; variant < count; variant++) {
    let text = simulateText({
      model,
      prompt: results.length > 0 ? answerPromptAfterTools(quotedRequest(partsText(question?.parts)), results) : quotedRequest(turnText(lastUser.parts)),
      maxTokens: configValue<number>(config, 'maxOutputTokens', 'max_output_tokens'),
      stop: configValue<string[]>(config, 'stopSequences', 'stop_sequences'),
      variant,
      withReasoning: isImageModel || thinking?.includeThoughts === true || thinking?.include_thoughts === true,
    });
    const json = isImageModel ? undefined : structuredContent(format, `${turnText(lastUser.parts)}\n${variant}`, text.content);
    if (json !== undefined) {
      const contentPieces = tokenPieces(json);
      text = { ...text, content: json, contentPieces, contentTokens: contentPieces.length, finishReason: 'stop' };
    }
    const wantsLogprobs = configValue<boolean>(config, 'responseLogprobs', 'response_logprobs') === true;
    const topCount = configValue<number>(config, 'logprobs', 'logprobs') ?? 0;
    const output = isImageModel ? imageOutput(config, png) : calls.length > 0 ? callOutput(calls) : textOutput(text, wantsLogprobs ? { topCount } : undefined);
    if (typeof output === 'string') return output;
    const thoughts = groupPieces(text.reasoningPieces, 3).map((group) => ({ candidates: [candidate([{ text: group, thought: true }])] }));
    perCandidate.push({ chunks: [...thoughts, ...output.chunks], output, reasoningTokens: text.reasoningTokens });
  }
  const outputTokens = perCandidate.reduce((sum, c) => sum + c.output.tokens, 0);
  const reasoningTokens = perCandidate.reduce((sum, c) => sum + c.reasoningTokens, 0);
  // Implicit caching: a repeated long prefix is reported as cached content (issue 21).
  const cached = promptCache?.cachedPrefixTokens(allText, promptTokenCount) ?? 0;
  const usage: GeminiUsageMetadata = {
    promptTokenCount,
    ...(cached > 0 ? { cachedContentTokenCount: cached, cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cached }] } : {}),
    candidatesTokenCount: outputTokens,
    totalTokenCount: promptTokenCount + outputTokens + reasoningTokens,
    ...(reasoningTokens > 0 ? { thoughtsTokenCount: reasoningTokens } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokenCount }],
    candidatesTokensDetails: [{ modality: perCandidate[0]!.output.modality, tokenCount: outputTokens }],
  };
  const responseId = stableId('gemini', model, JSON.stringify(body)).slice(0, 22);
  const chunks = zipCandidates(perCandidate.map((c) => c.chunks));
  return chunks.map((chunk, i) => ({ ...chunk, ...(i === chunks.length - 1 ? { usageMetadata: usage } : {}), modelVersion: model, responseId }));
}

/** Stream chunk k holds the k-th chunk of every candidate that has one, each with its own index. */
function zipCandidates(lists: readonly Chunk[][]): Chunk[] {
  const length = Math.max(...lists.map((list) => list.length));
  return Array.from({ length }, (_, k) => ({
    candidates: lists.flatMap((list, index) => (list[k]?.candidates ?? []).map((c) => ({ ...c, index }))),
  }));
}

/** Each function call comes whole in its own part; Gemini finishes such a turn with STOP. */
function callOutput(calls: readonly GeminiFunctionCall[]): Output {
  const parts = calls.map((call) => ({ functionCall: call }));
  return { chunks: [{ candidates: [candidate(parts, 'STOP')] }], tokens: countTokens(JSON.stringify(calls)), modality: 'TEXT' };
}

function textOutput(text: SimulatedText, logprobs: { topCount: number } | undefined): Output {
  const pieces = groupPieces(text.contentPieces, 4);
  const finishReason = text.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
  const chunks = pieces.map((piece, i) => ({ candidates: [candidate([{ text: piece }], i === pieces.length - 1 ? finishReason : undefined)] }));
  if (chunks.length === 0) chunks.push({ candidates: [candidate([{ text: '' }], finishReason)] });
  if (logprobs) Object.assign(chunks[chunks.length - 1]!.candidates[0]!, logprobsResult(text, logprobs.topCount));
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
  return { chunks: [{ candidates: [candidate([image], 'STOP')] }], tokens: IMAGE_TOKENS[size as GeminiImageSize], modality: 'IMAGE' };
}

/** Joins token pieces into at most `groups` chunks of text (Gemini streams sentence-sized chunks). */
function groupPieces(pieces: readonly string[], groups: number): string[] {
  if (pieces.length === 0) return [];
  const size = Math.ceil(pieces.length / groups);
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i += size) out.push(pieces.slice(i, i + size).join(''));
  return out;
}

/** The non-streamed answer: per candidate, the chunks' parts concatenated per kind, the last finish; the last usage. */
function mergeChunks(chunks: readonly GeminiGenerateContentResponse[]): GeminiGenerateContentResponse {
  const byIndex = new Map<number, Candidate[]>();
  for (const c of chunks.flatMap((chunk) => chunk.candidates ?? [])) byIndex.set(c.index ?? 0, [...(byIndex.get(c.index ?? 0) ?? []), c]);
  const last = chunks[chunks.length - 1]!;
  return {
    candidates: [...byIndex.entries()].map(([index, pieces]) => mergeCandidate(index, pieces)),
    usageMetadata: last.usageMetadata,
    modelVersion: last.modelVersion,
    responseId: last.responseId,
  };
}

function mergeCandidate(index: number, pieces: readonly Candidate[]): Candidate {
  const parts = pieces.flatMap((c) => c.content?.parts ?? []);
  const thought = parts.filter((p) => p.thought).map((p) => p.text).join('');
  const text = parts.filter((p) => !p.thought && typeof p.text === 'string').map((p) => p.text).join('');
  const others = parts.filter((p) => p.inlineData || p.functionCall);
  const merged: GeminiPart[] = [...(thought ? [{ text: thought, thought: true }] : []), ...(text || others.length === 0 ? [{ text }] : []), ...others];
  const { avgLogprobs, logprobsResult: result } = pieces[pieces.length - 1]! as Candidate & { avgLogprobs?: number; logprobsResult?: unknown };
  const logprobs = result === undefined ? {} : { avgLogprobs, logprobsResult: result };
  return { content: { role: 'model', parts: merged }, finishReason: pieces[pieces.length - 1]!.finishReason ?? 'STOP', index, ...logprobs };
}
