import { GatewayError } from '../../errors.js';
import type { GeminiGenerateContentRequest, GeminiImageConfig, GeminiImageSize, GeminiUsageMetadata } from '../../protocols/gemini-generate/types.js';
import type { OpenAIImageSize, OpenAIImagesRequest, OpenAIImagesResponse, OpenAIImagesUsage } from '../../protocols/openai-images/types.js';
import type { StreamTranslator, TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { geminiModelPath } from './endpoint.js';
import { asGeminiResponse, FILTER_REASONS, geminiErrorToGateway, outputImageParts, usageFromGemini } from './wire.js';

/**
 * OpenAI `size` → Gemini imageConfig (gemini.md "Image generation"). The ratio is the size's own
 * (1792x1024 is OpenAI's 16:9 landscape); the tier is the nearest one: 256/512 px → "512",
 * 1024–1792 px → "1K" (1K already renders 16:9 at 1376x768, closer to 1792x1024 than 2K is).
 * `auto` sends no imageConfig, leaving the choice to the model as OpenAI's `auto` does.
 */
const IMAGE_CONFIG_BY_SIZE = {
  '1024x1024': { aspectRatio: '1:1', imageSize: '1K' },
  '1536x1024': { aspectRatio: '3:2', imageSize: '1K' },
  '1024x1536': { aspectRatio: '2:3', imageSize: '1K' },
  '256x256': { aspectRatio: '1:1', imageSize: '512' },
  '512x512': { aspectRatio: '1:1', imageSize: '512' },
  '1792x1024': { aspectRatio: '16:9', imageSize: '1K' },
  '1024x1792': { aspectRatio: '9:16', imageSize: '1K' },
} as const satisfies Record<Exclude<OpenAIImageSize, 'auto'>, { aspectRatio: string; imageSize: GeminiImageSize }>;

export function imageConfigForSize(size: OpenAIImageSize | undefined): GeminiImageConfig | undefined {
  return size === undefined || size === 'auto' ? undefined : { ...IMAGE_CONFIG_BY_SIZE[size] };
}

/**
 * OpenAI Images generations to Gemini generateContent with image output. One call makes one
 * image; the route makes `n` calls. Only the prompt and size map; OpenAI-only options (quality,
 * style, background, output_format…) have no Gemini counterpart and are not sent.
 */
export const imagesToGemini: TranslatorPair<OpenAIImagesRequest, OpenAIImagesResponse> = {
  toUpstream(req: OpenAIImagesRequest, ctx: TranslateContext): UpstreamCall {
    const imageConfig = imageConfigForSize(req.size);
    const body: GeminiGenerateContentRequest = {
      contents: [{ role: 'user', parts: [{ text: req.prompt }] }],
      generationConfig: { responseModalities: ['IMAGE'], ...(imageConfig ? { imageConfig } : {}) },
    };
    return { method: 'POST', path: geminiModelPath(ctx.upstreamModel, 'generateContent'), body };
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIImagesResponse; usage: Usage } {
    const response = asGeminiResponse(res);
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason) throw new GatewayError('GW_UPSTREAM_CONTENT_FILTER', `The upstream provider blocked the prompt (${blockReason})`);
    const images = outputImageParts(response);
    if (images.length === 0) {
      const reason = response.candidates?.[0]?.finishReason;
      if (reason && FILTER_REASONS.has(reason)) {
        throw new GatewayError('GW_UPSTREAM_CONTENT_FILTER', `The upstream provider filtered the image (${reason})`);
      }
      throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream returned no image${reason ? ` (${reason})` : ''}`);
    }
    const body: OpenAIImagesResponse = { created: ctx.now, data: images.map((part) => ({ b64_json: part.inlineData!.data })) };
    const usage = imagesUsage(response.usageMetadata);
    if (usage) body.usage = usage;
    return { body, usage: usageFromGemini(response.usageMetadata, images.length) };
  },

  // The images route never streams: `stream` is rejected by its schema (api/images/schemas.ts).
  createStreamTranslator(): StreamTranslator {
    throw new GatewayError('GW_MODEL_UNSUPPORTED', 'Streaming is not supported on the images endpoint');
  },

  fromUpstreamError: geminiErrorToGateway,
};

/** OpenAI's ImagesResponse.usage from Gemini's usageMetadata; thoughts count as output. */
function imagesUsage(meta: GeminiUsageMetadata | undefined): OpenAIImagesUsage | undefined {
  if (!meta) return undefined;
  const input = meta.promptTokenCount ?? 0;
  const output = (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0);
  const usage: OpenAIImagesUsage = { total_tokens: meta.totalTokenCount ?? input + output, input_tokens: input, output_tokens: output };
  const details = meta.promptTokensDetails;
  if (Array.isArray(details)) {
    const byModality = (modality: string) =>
      details.reduce((sum: number, d: unknown) => {
        const entry = d as { modality?: unknown; tokenCount?: unknown };
        return entry.modality === modality && typeof entry.tokenCount === 'number' ? sum + entry.tokenCount : sum;
      }, 0);
    usage.input_tokens_details = { text_tokens: byModality('TEXT'), image_tokens: byModality('IMAGE') };
  }
  return usage;
}
