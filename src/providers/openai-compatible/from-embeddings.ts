import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import { GATEWAY_EMBEDDING_FIELDS, type EmbeddingsTranslatorPair, type OpenAIEmbedding, type OpenAIEmbeddingsRequest, type OpenAIEmbeddingsResponse } from '../../protocols/openai-embeddings/types.js';
import { vectorIn } from '../../protocols/openai-embeddings/vector-encoding.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';
import { embeddingsChunksFastPath } from './embeddings-chunks.js';

/**
 * /v1/embeddings → any OpenAI-compatible server (OpenAI, vLLM, Ollama, TEI, LM Studio): the same
 * protocol, so the client's body goes on with only the model renamed and its `encoding_format`
 * kept. An answer already in the client's encoding passes through in its chunks (embeddings-chunks.ts);
 * one that is not (a server that ignores base64) is converted vector by vector with Buffers.
 */
export function embeddingsToOpenAICompatible(options: EmbeddingsQuirks): EmbeddingsTranslatorPair {
  const path = options.path ?? '/embeddings';
  return {
    maxInputsPerCall: options.maxInputsPerCall,
    toUpstream: (req, ctx) => ({
      method: 'POST',
      path,
      body: withoutGatewayFields({ ...req, model: ctx.upstreamModel, ...(options.floatOnly ? { encoding_format: 'float' as const } : {}) }),
    }),
    fromUpstream: (res, ctx) => fromOpenAIEmbeddings(res, ctx),
    fromUpstreamChunks: embeddingsChunksFastPath,
    fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
  };
}

/** How one OpenAI-compatible embeddings endpoint differs from OpenAI's. */
export interface EmbeddingsQuirks {
  /** Inputs per call (OpenAI 2,048; DashScope 10); the family splits larger requests. */
  maxInputsPerCall: number;
  /** Path after the channel's base URL; `/embeddings` when absent. */
  path?: string;
  /** The server answers floats only (and may refuse `base64`): ask for floats, the gateway encodes. */
  floatOnly?: boolean;
}

function withoutGatewayFields(body: OpenAIEmbeddingsRequest): OpenAIEmbeddingsRequest {
  for (const field of GATEWAY_EMBEDDING_FIELDS) delete body[field];
  return body;
}

export function fromOpenAIEmbeddings(res: unknown, ctx: TranslateContext): { body: OpenAIEmbeddingsResponse; usage: Usage } {
  const data = (res as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || !data.every(isEmbedding)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned embeddings in an unknown shape');
  const expected = ctx.vectors?.inputs ?? data.length;
  if (data.length !== expected) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream returned ${data.length} embeddings for ${expected} inputs`);
  const encoding = ctx.vectors?.encoding ?? 'float';
  const ordered = [...data].sort((a, b) => a.index - b.index);
  const items = ordered.map((item, index): OpenAIEmbedding => ({ object: 'embedding', index, embedding: vectorIn(item.embedding, encoding) }));
  const usage = (res as { usage?: { prompt_tokens?: unknown; total_tokens?: unknown } }).usage;
  // Voyage reports only total_tokens; a server that reports nothing is counted with the gateway's tokenizer.
  const promptTokens = typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : typeof usage?.total_tokens === 'number' ? usage.total_tokens : (ctx.vectors?.inputTokens?.() ?? 0);
  return {
    body: { object: 'list', data: items, model: ctx.model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } },
    usage: { promptTokens, completionTokens: 0, reasoningTokens: 0, totalTokens: promptTokens },
  };
}

function isEmbedding(item: unknown): item is OpenAIEmbedding {
  if (!item || typeof item !== 'object') return false;
  const { index, embedding } = item as { index?: unknown; embedding?: unknown };
  return typeof index === 'number' && (typeof embedding === 'string' || Array.isArray(embedding));
}
