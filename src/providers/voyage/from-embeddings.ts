import { GatewayError } from '../../errors.js';
import type { EmbeddingsTranslatorPair, OpenAIEmbeddingsRequest } from '../../protocols/openai-embeddings/types.js';
import { fromOpenAIEmbeddings } from '../openai-compatible/from-embeddings.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';
import { VOYAGE_MAX_INPUTS } from './endpoint.js';

/**
 * /v1/embeddings → Voyage `POST /v1/embeddings` (embeddings.md §4): OpenAI's answer shape but its
 * own request words: `input_type` query/document (our normalised role, as is), `output_dimension`
 * for `dimensions`, `encoding_format` only `base64` (little-endian float32, as OpenAI's) or absent.
 * The answer reports `usage.total_tokens` only.
 */
export const embeddingsToVoyage: EmbeddingsTranslatorPair = {
  maxInputsPerCall: VOYAGE_MAX_INPUTS,
  toUpstream: (req, ctx) => ({ method: 'POST', path: '/embeddings', body: toVoyageRequest(req, ctx.upstreamModel) }),
  fromUpstream: (res, ctx) => fromOpenAIEmbeddings(res, ctx),
  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};

function toVoyageRequest(req: OpenAIEmbeddingsRequest, model: string): Record<string, unknown> {
  const input = typeof req.input === 'string' ? [req.input] : req.input;
  if (!input.every((text): text is string => typeof text === 'string')) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "This model's upstream (Voyage) embeds text only: send 'input' as strings, not token ids", { param: 'input' });
  }
  return {
    model,
    input,
    ...(req.input_type ? { input_type: req.input_type } : {}),
    ...(req.dimensions !== undefined ? { output_dimension: req.dimensions } : {}),
    ...(req.encoding_format === 'base64' ? { encoding_format: 'base64' } : {}),
  };
}
