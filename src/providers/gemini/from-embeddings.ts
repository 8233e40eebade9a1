import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import { GEMINI_MAX_BATCH, type GeminiBatchEmbedContentsRequest, type GeminiEmbedContentRequest } from '../../protocols/gemini-embed/types.js';
import type { EmbeddingsTranslatorPair, OpenAIEmbedding, OpenAIEmbeddingsRequest, OpenAIEmbeddingsResponse } from '../../protocols/openai-embeddings/types.js';
import { vectorIn } from '../../protocols/openai-embeddings/vector-encoding.js';
import { geminiEmbedPath } from './endpoint.js';
import { geminiErrorToGateway } from './wire.js';

/** Our normalised retrieval role as Gemini's task type, where the client gave no task type of its own. */
const TASK_OF_INPUT_TYPE = { query: 'RETRIEVAL_QUERY', document: 'RETRIEVAL_DOCUMENT' } as const;

/**
 * /v1/embeddings (and the Gemini-native embed paths) → Gemini's `batchEmbedContents`
 * (protocols/embeddings.md §2): one content per input, never several texts as the parts of one
 * content (which the API merges into one vector, the bug LiteLLM and LangChain users met). The
 * answer must hold one vector per input, else a 502: a vector short would shift every later one.
 * Gemini reports no tokens, so usage is the gateway's own count of the inputs; it has no base64,
 * so the gateway encodes the floats when the client asked for it.
 */
export const embeddingsToGemini: EmbeddingsTranslatorPair = {
  maxInputsPerCall: GEMINI_MAX_BATCH,
  toUpstream: (req, ctx) => ({ method: 'POST', path: geminiEmbedPath(ctx.upstreamModel, 'batchEmbedContents'), body: toBatchRequest(req, ctx.upstreamModel) }),
  fromUpstream: (res, ctx) => fromBatchAnswer(res, ctx),
  fromUpstreamError: geminiErrorToGateway,
};

function toBatchRequest(req: OpenAIEmbeddingsRequest, upstreamModel: string): GeminiBatchEmbedContentsRequest {
  const inputs = typeof req.input === 'string' ? [req.input] : req.input;
  const taskType = req.gemini_task_type ?? (req.input_type ? TASK_OF_INPUT_TYPE[req.input_type] : undefined);
  const requests = inputs.map((input, i): GeminiEmbedContentRequest => {
    if (typeof input !== 'string') throw new GatewayError('GW_REQ_INVALID_PARAM', "This model's upstream (Gemini) embeds text only: send 'input' as strings, not token ids", { param: 'input' });
    const title = req.titles?.[i];
    return {
      model: `models/${upstreamModel}`,
      content: { parts: [{ text: input }] },
      ...(taskType ? { taskType: taskType as GeminiEmbedContentRequest['taskType'] } : {}),
      ...(typeof title === 'string' ? { title } : {}),
      ...(req.dimensions !== undefined ? { outputDimensionality: req.dimensions } : {}),
    };
  });
  return { requests };
}

function fromBatchAnswer(res: unknown, ctx: TranslateContext): { body: OpenAIEmbeddingsResponse; usage: Usage } {
  const embeddings = (res as { embeddings?: unknown } | null)?.embeddings;
  if (!Array.isArray(embeddings)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Gemini) returned embeddings in an unknown shape');
  const expected = ctx.vectors?.inputs ?? embeddings.length;
  if (embeddings.length !== expected) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream (Gemini) returned ${embeddings.length} embeddings for ${expected} inputs`);
  }
  const encoding = ctx.vectors?.encoding ?? 'float';
  const data = embeddings.map((item: unknown, index): OpenAIEmbedding => {
    const values = (item as { values?: unknown } | null)?.values;
    if (!Array.isArray(values)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Gemini) returned an embedding without values');
    return { object: 'embedding', index, embedding: vectorIn(values as number[], encoding) };
  });
  const tokens = ctx.vectors?.inputTokens?.() ?? 0;
  return {
    body: { object: 'list', data, model: ctx.model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
    usage: { promptTokens: tokens, completionTokens: 0, reasoningTokens: 0, totalTokens: tokens },
  };
}
