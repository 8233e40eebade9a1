import type { GeminiGenerateContentResponse, GenerateContentCall } from '../../protocols/gemini-generate/types.js';
import type { TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { geminiModelPath } from './endpoint.js';
import { createGenerateContentStreamTranslator } from './generate-content-stream.js';
import { asGeminiResponse, geminiErrorToGateway, outputImageParts, usageFromGemini } from './wire.js';

/**
 * Native generate-content to Gemini: the same protocol on both sides, so the body passes through
 * unchanged (the model lives in the path). Responses get `modelVersion` = the public id; streams
 * are re-shaped into the spec's chunk order (generate-content-stream.ts).
 */
export const generateContentToGemini: TranslatorPair<GenerateContentCall, GeminiGenerateContentResponse> = {
  toUpstream(req: GenerateContentCall, ctx: TranslateContext): UpstreamCall {
    const call: UpstreamCall = { method: 'POST', path: geminiModelPath(ctx.upstreamModel, req.method), body: req.body };
    if (req.method === 'streamGenerateContent') call.query = { alt: 'sse' };
    return call;
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: GeminiGenerateContentResponse; usage: Usage } {
    const response = asGeminiResponse(res);
    return {
      body: { ...response, modelVersion: ctx.model },
      usage: usageFromGemini(response.usageMetadata, outputImageParts(response).length),
    };
  },

  createStreamTranslator: createGenerateContentStreamTranslator,
  fromUpstreamError: geminiErrorToGateway,
};
