import { GatewayError } from '../../errors.js';
import type { OpenAIImagesRequest, OpenAIImagesResponse, OpenAIImagesUsage } from '../../protocols/openai-images/types.js';
import type { StreamTranslator, TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';

/**
 * OpenAI Images generations to an OpenAI-shaped images endpoint (Azure's `images/generations`
 * deployments of gpt-image-1 and dall-e-3). The images route makes one call per image, so `n`
 * is 1 upstream; `b64_json` is asked for so the gateway keeps the image (the route serves `url`
 * from its own media store, never the upstream's signed link).
 */
export const imagesToOpenAI: TranslatorPair<OpenAIImagesRequest, OpenAIImagesResponse> = {
  toUpstream(req: OpenAIImagesRequest, ctx: TranslateContext) {
    // gpt-image models answer base64 only and refuse `response_format`; DALL·E takes it.
    const { response_format: _format, ...rest } = req;
    const body = { ...rest, model: ctx.upstreamModel, n: 1, ...(/^dall-e/i.test(ctx.upstreamModel) ? { response_format: 'b64_json' } : {}) };
    return { method: 'POST', path: '/images/generations', body };
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIImagesResponse; usage: Usage } {
    const data = (res as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length === 0) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned no image');
    const images = data
      .filter((item): item is { b64_json: string; revised_prompt?: unknown } => !!item && typeof (item as { b64_json?: unknown }).b64_json === 'string')
      .map((item) => ({ b64_json: item.b64_json, ...(typeof item.revised_prompt === 'string' ? { revised_prompt: item.revised_prompt } : {}) }));
    if (images.length === 0) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned no image data');
    const usage = (res as { usage?: OpenAIImagesUsage }).usage;
    const body: OpenAIImagesResponse = { created: ctx.now, data: images, ...(usage ? { usage } : {}) };
    const input = usage?.input_tokens ?? 0;
    const output = usage?.output_tokens ?? 0;
    return {
      body,
      usage: {
        promptTokens: input,
        completionTokens: output,
        reasoningTokens: 0,
        totalTokens: usage?.total_tokens ?? input + output,
        images: images.length,
        ...(usage?.input_tokens_details ? { imageInputTokens: usage.input_tokens_details.image_tokens } : {}),
        ...(usage ? { imageOutputTokens: output } : {}),
      },
    };
  },

  createStreamTranslator(): StreamTranslator {
    throw new GatewayError('GW_MODEL_UNSUPPORTED', 'Streaming is not supported on the images endpoint');
  },

  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};
