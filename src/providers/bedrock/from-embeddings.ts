import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { EmbeddingsTranslatorPair, OpenAIEmbedding, OpenAIEmbeddingsRequest, OpenAIEmbeddingsResponse } from '../../protocols/openai-embeddings/types.js';
import { vectorIn } from '../../protocols/openai-embeddings/vector-encoding.js';
import { cohereInputType, inputTokensOf, type CohereMeta } from '../cohere/wire.js';
import { bedrockPath } from './endpoint.js';
import { bedrockUpstreamError } from './errors.js';

/** Cohere's embed models on Bedrock take up to 96 texts a call; Titan embeds one text per call (clouds.md §2). */
const COHERE_MAX_TEXTS = 96;
const TITAN_MAX_TEXTS = 1;
/** Titan Text Embeddings v2's only output sizes. */
const TITAN_V2_DIMENSIONS = [256, 512, 1024];

/** Cohere's embed models and their inference profiles (`cohere.embed-english-v3`, `us.cohere.embed-v4:0`). */
export const isCohereEmbedModel = (modelId: string): boolean => /(^|[./])cohere\.embed/.test(modelId);

/**
 * /v1/embeddings → Bedrock InvokeModel with the model's own body (clouds.md §2 "Embeddings"):
 *   Titan (`amazon.titan-embed-text-v2:0`): `{inputText, dimensions, normalize, embeddingTypes}`,
 *     one text per call, usage from `inputTextTokenCount`;
 *   Cohere (`cohere.embed-*`): `{texts, input_type, embedding_types: ["float"]}`, read from the
 *     by-type answer, usage from `meta` where sent, else the gateway's count (Bedrock puts the
 *     count in a header the pair does not see).
 * Other Bedrock models (Nova, Llama) have no embeddings: Titan's body is sent and Bedrock's
 * ValidationException answers.
 */
export const embeddingsToBedrock: EmbeddingsTranslatorPair = {
  maxInputsPerCall: COHERE_MAX_TEXTS,
  maxInputsFor: (modelId) => (isCohereEmbedModel(modelId) ? COHERE_MAX_TEXTS : TITAN_MAX_TEXTS),

  toUpstream(req: OpenAIEmbeddingsRequest, ctx: TranslateContext) {
    const texts = textsOf(req);
    const body = isCohereEmbedModel(ctx.upstreamModel) ? toCohereBody(req, texts) : toTitanBody(req, texts, ctx.upstreamModel);
    return { method: 'POST', path: bedrockPath(ctx.upstreamModel, 'invoke'), body, headers: { accept: 'application/json' } };
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIEmbeddingsResponse; usage: Usage } {
    const { vectors, tokens } = isCohereEmbedModel(ctx.upstreamModel) ? fromCohereAnswer(res, ctx) : fromTitanAnswer(res);
    const expected = ctx.vectors?.inputs ?? vectors.length;
    if (vectors.length !== expected) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream returned ${vectors.length} embeddings for ${expected} inputs`);
    const encoding = ctx.vectors?.encoding ?? 'float';
    const data = vectors.map((vector, index): OpenAIEmbedding => ({ object: 'embedding', index, embedding: vectorIn(vector, encoding) }));
    return {
      body: { object: 'list', data, model: ctx.model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
      usage: { promptTokens: tokens, completionTokens: 0, reasoningTokens: 0, totalTokens: tokens },
    };
  },

  fromUpstreamError: bedrockUpstreamError,
};

function textsOf(req: OpenAIEmbeddingsRequest): string[] {
  const inputs = Array.isArray(req.input) ? req.input : [req.input];
  if (!inputs.every((input): input is string => typeof input === 'string')) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "This model's upstream (Bedrock) embeds text only: send 'input' as strings, not token ids", { param: 'input' });
  }
  return inputs;
}

function toTitanBody(req: OpenAIEmbeddingsRequest, texts: string[], modelId: string): Record<string, unknown> {
  // The family splits by maxInputsFor; more than one text here is our bug, not the client's.
  if (texts.length !== TITAN_MAX_TEXTS) throw new GatewayError('GW_INTERNAL', 'Titan embeds one text per call');
  // v1 takes `inputText` alone; v2 adds the size, normalisation and the by-type answer.
  if (!/titan-embed-text-v2/.test(modelId)) {
    if (req.dimensions !== undefined) throw new GatewayError('GW_REQ_INVALID_PARAM', "'dimensions' is not supported by this model", { param: 'dimensions' });
    return { inputText: texts[0] };
  }
  if (req.dimensions !== undefined && !TITAN_V2_DIMENSIONS.includes(req.dimensions)) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'dimensions' must be 256, 512 or 1024 for this model", { param: 'dimensions' });
  }
  return { inputText: texts[0], ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}), normalize: true, embeddingTypes: ['float'] };
}

function toCohereBody(req: OpenAIEmbeddingsRequest, texts: string[]): Record<string, unknown> {
  return {
    texts,
    input_type: cohereInputType(req.input_type),
    embedding_types: ['float'],
    ...(req.dimensions !== undefined ? { output_dimension: req.dimensions } : {}),
  };
}

const isVector = (value: unknown): value is number[] => Array.isArray(value) && value.every((item) => typeof item === 'number');

function fromTitanAnswer(res: unknown): { vectors: number[][]; tokens: number } {
  const answer = (res ?? {}) as { embedding?: unknown; embeddingsByType?: { float?: unknown }; inputTextTokenCount?: unknown };
  const vector = answer.embeddingsByType?.float ?? answer.embedding;
  if (!isVector(vector)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Bedrock Titan) returned no float embedding');
  const tokens = Number(answer.inputTextTokenCount);
  return { vectors: [vector], tokens: Number.isFinite(tokens) && tokens > 0 ? tokens : 0 };
}

function fromCohereAnswer(res: unknown, ctx: TranslateContext): { vectors: number[][]; tokens: number } {
  const answer = (res ?? {}) as { embeddings?: unknown; meta?: CohereMeta };
  // The by-type answer (`{float: [[…]]}`, what `embedding_types` asks for), or the floats-only one (`[[…]]`).
  const vectors = Array.isArray(answer.embeddings) ? answer.embeddings : (answer.embeddings as { float?: unknown } | undefined)?.float;
  if (!Array.isArray(vectors) || !vectors.every(isVector)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Bedrock Cohere) returned embeddings without float vectors');
  return { vectors, tokens: inputTokensOf(answer.meta) ?? ctx.vectors?.inputTokens?.() ?? 0 };
}
