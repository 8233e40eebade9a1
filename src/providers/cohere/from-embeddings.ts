import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { EmbeddingsTranslatorPair, OpenAIEmbedding, OpenAIEmbeddingsRequest, OpenAIEmbeddingsResponse } from '../../protocols/openai-embeddings/types.js';
import { vectorIn } from '../../protocols/openai-embeddings/vector-encoding.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';
import { COHERE_MAX_TEXTS } from './endpoint.js';
import { cohereInputType, inputTokensOf, type CohereMeta } from './wire.js';

/**
 * /v1/embeddings → Cohere `POST /v2/embed` (embeddings.md §3): `texts` (at most 96; the family
 * splits), `input_type` from our normalised role (search_query / search_document; v3 and later
 * models require one), `embedding_types: ["float"]` always, read back from `embeddings.float` (the
 * by-type answer LiteLLM users found ignored), and base64 encoded by the gateway when the client
 * asked for it: Cohere's own base64 type is not documented as OpenAI's byte layout.
 */
export const embeddingsToCohere: EmbeddingsTranslatorPair = {
  maxInputsPerCall: COHERE_MAX_TEXTS,
  toUpstream: (req, ctx) => ({ method: 'POST', path: '/v2/embed', body: toEmbedRequest(req, ctx.upstreamModel) }),
  fromUpstream: (res, ctx) => fromEmbedAnswer(res, ctx),
  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};

function toEmbedRequest(req: OpenAIEmbeddingsRequest, model: string): Record<string, unknown> {
  const texts = typeof req.input === 'string' ? [req.input] : req.input;
  if (!texts.every((text): text is string => typeof text === 'string')) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "This model's upstream (Cohere) embeds text only: send 'input' as strings, not token ids", { param: 'input' });
  }
  return {
    model,
    texts,
    input_type: cohereInputType(req.input_type),
    embedding_types: ['float'],
    ...(req.dimensions !== undefined ? { output_dimension: req.dimensions } : {}),
  };
}

function fromEmbedAnswer(res: unknown, ctx: TranslateContext): { body: OpenAIEmbeddingsResponse; usage: Usage } {
  const answer = (res ?? {}) as { embeddings?: unknown; meta?: CohereMeta };
  // The by-type answer (`{float: [[…]]}`), or the older floats-only one (`[[…]]`).
  const vectors = Array.isArray(answer.embeddings) ? answer.embeddings : (answer.embeddings as { float?: unknown } | undefined)?.float;
  if (!Array.isArray(vectors) || !vectors.every(Array.isArray)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Cohere) returned embeddings without float vectors');
  const expected = ctx.vectors?.inputs ?? vectors.length;
  if (vectors.length !== expected) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream (Cohere) returned ${vectors.length} embeddings for ${expected} inputs`);
  const encoding = ctx.vectors?.encoding ?? 'float';
  const data = vectors.map((vector: number[], index): OpenAIEmbedding => ({ object: 'embedding', index, embedding: vectorIn(vector, encoding) }));
  const tokens = inputTokensOf(answer.meta) ?? ctx.vectors?.inputTokens?.() ?? 0;
  return {
    body: { object: 'list', data, model: ctx.model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
    usage: { promptTokens: tokens, completionTokens: 0, reasoningTokens: 0, totalTokens: tokens },
  };
}
