import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { EmbeddingsTranslatorPair, OpenAIEmbedding, OpenAIEmbeddingsRequest, OpenAIEmbeddingsResponse } from '../../protocols/openai-embeddings/types.js';
import { vectorIn } from '../../protocols/openai-embeddings/vector-encoding.js';
import { geminiErrorToGateway } from '../gemini/wire.js';
import { publisherPath } from './endpoint.js';

/** Vertex's text-embedding `:predict` takes at most 250 instances a call (clouds.md §3); gemini-embedding-001 one. */
const MAX_INSTANCES = 250;
const ONE_INSTANCE_MODELS = /^gemini-embedding-/;
/** Our normalised retrieval role as Vertex's `task_type`, where the client gave no task type of its own (Gemini-native). */
const TASK_OF_INPUT_TYPE = { query: 'RETRIEVAL_QUERY', document: 'RETRIEVAL_DOCUMENT' } as const;

interface VertexPrediction {
  embeddings?: { values?: unknown; statistics?: { token_count?: unknown } };
}

/**
 * /v1/embeddings → Vertex `…/publishers/google/models/{model}:predict`: one instance per text
 * (with `task_type` from `input_type` or the Gemini-native task type, and its `title`),
 * `dimensions` as `outputDimensionality`, long texts truncated as the API does by default. Usage
 * is the sum of each prediction's `statistics.token_count`.
 */
export const embeddingsToVertex: EmbeddingsTranslatorPair = {
  maxInputsPerCall: MAX_INSTANCES,
  maxInputsFor: (model) => (ONE_INSTANCE_MODELS.test(model) ? 1 : MAX_INSTANCES),

  toUpstream(req: OpenAIEmbeddingsRequest, ctx: TranslateContext) {
    const inputs = Array.isArray(req.input) ? req.input : [req.input];
    if (!inputs.every((input): input is string => typeof input === 'string')) {
      throw new GatewayError('GW_REQ_INVALID_PARAM', 'This model takes text inputs, not token ids', { param: 'input' });
    }
    const parameters = { autoTruncate: true, ...(req.dimensions !== undefined ? { outputDimensionality: req.dimensions } : {}) };
    const taskType = req.gemini_task_type ?? (req.input_type ? TASK_OF_INPUT_TYPE[req.input_type] : undefined);
    const instances = inputs.map((content, i) => {
      const title = req.titles?.[i];
      return { content, ...(taskType ? { task_type: taskType } : {}), ...(typeof title === 'string' ? { title } : {}) };
    });
    return { method: 'POST', path: publisherPath('google', ctx.upstreamModel, 'predict'), body: { instances, parameters } };
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIEmbeddingsResponse; usage: Usage } {
    const predictions = (res as { predictions?: unknown } | null)?.predictions as VertexPrediction[] | undefined;
    if (!Array.isArray(predictions) || !predictions.every((p) => Array.isArray(p?.embeddings?.values))) {
      throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned embeddings in an unknown shape');
    }
    const expected = ctx.vectors?.inputs ?? predictions.length;
    if (predictions.length !== expected) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream returned ${predictions.length} embeddings for ${expected} inputs`);
    const encoding = ctx.vectors?.encoding ?? 'float';
    let tokens = 0;
    const data = predictions.map((prediction, index): OpenAIEmbedding => {
      const count = Number(prediction.embeddings!.statistics?.token_count);
      if (Number.isFinite(count)) tokens += count;
      return { object: 'embedding', index, embedding: vectorIn(prediction.embeddings!.values as number[], encoding) };
    });
    return {
      body: { object: 'list', data, model: ctx.model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
      usage: { promptTokens: tokens, completionTokens: 0, reasoningTokens: 0, totalTokens: tokens },
    };
  },

  fromUpstreamError: geminiErrorToGateway,
};
