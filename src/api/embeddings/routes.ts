import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Usage } from '../../contracts/usage.js';
import { dispatchJson, dispatchJsonReply } from '../../gateway/dispatch.js';
import { admit } from '../../plugins/rate-limit.js';
import type { EmbeddingEncoding, EmbeddingsTranslatorPair, OpenAIEmbedding, OpenAIEmbeddingsResponse } from '../../protocols/openai-embeddings/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import { countTokens } from '../../tokens/tokenizer.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { embeddingsFacts } from './facts.js';
import { EmbeddingsRequestDoc, validateEmbeddingsRequest, type EmbeddingsRequest } from './schemas.js';
import { summariseEmbeddingsAnswer } from './summary.js';
import { openaiErrors } from './errors.js';
import { answerJsonCached } from '../../gateway/response-cache-dispatch.js';

/** Embeddings never stream and never call tools: the cache keeps their JSON as sent. */
const EMBEDDINGS_CACHE_CODEC = { hasClientToolCalls: () => false };

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    embeddings: EmbeddingsTranslatorPair;
  }
}

/** Upstream calls of one split request in flight at once: enough to overlap, few enough not to flood a vendor's rpm. */
const SPLIT_CONCURRENCY = 4;

/** POST /v1/embeddings: OpenAI's embeddings API (protocols/embeddings.md §1). */
export async function embeddingsRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/v1/embeddings',
    {
      config: { family: 'embeddings', errors: openaiErrors, operation: 'embeddings' },
      schema: {
        summary: 'Create embeddings',
        description: 'OpenAI embeddings shape. `encoding_format` `base64` (the SDKs\' default) answers little-endian float32; a request larger than an upstream takes in one call is split and answered in input order.',
        tags: ['embeddings'],
        security: [{ bearer: [] }],
        body: EmbeddingsRequestDoc,
      },
      validatorCompiler: () => toFastifyValidator((body) => validateEmbeddingsRequest(body, app.gateway.catalog)),
      // After the usage recorder's own onSend: the request log keeps a summary, never the vectors.
      onSend: (request, reply, payload, done) => {
        if (request.gw?.responseText !== undefined && reply.statusCode < 300) {
          request.gw.responseText = summariseEmbeddingsAnswer(request.gw.responseText, (request.body as EmbeddingsRequest).inputs.length);
        }
        done(null, payload);
      },
    },
    async (request, reply) => createEmbeddings(request, reply),
  );
}

async function createEmbeddings(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const validated = request.body as EmbeddingsRequest;
  const { body, inputs, encoding } = validated;
  await admitEmbeddings(request, reply, validated);
  return answerJsonCached({ family: 'embeddings', model: body.model, request, reply, codec: EMBEDDINGS_CACHE_CODEC }, () => {
    // One call answers as the upstream's text where it can (no JSON round trip of the vectors).
    if (inputs.length <= perCallLimit(request, body.model)) {
      return dispatchJsonReply({ family: 'embeddings', model: body.model, body, request, reply, client: { vectors: vectorsOf(encoding, inputs) } });
    }
    return embedInCalls(request, reply, validated);
  });
}

async function admitEmbeddings(request: FastifyRequest, reply: FastifyReply, validated: EmbeddingsRequest): Promise<void> {
  const admitting = admit(request, reply, validated.body.model, { facts: embeddingsFacts(validated) });
  if (admitting) await admitting;
}

/**
 * A validated request embedded and answered as a parsed body, whatever its size (other surfaces
 * over the same upstreams: the Gemini-native embedContent paths). Admits the request first.
 */
export async function embedValidated(request: FastifyRequest, reply: FastifyReply, validated: EmbeddingsRequest): Promise<OpenAIEmbeddingsResponse> {
  await admitEmbeddings(request, reply, validated);
  return embedInCalls(request, reply, validated);
}

/** Split into calls of at most the per-call limit, at most SPLIT_CONCURRENCY in flight, joined in input order. */
async function embedInCalls(request: FastifyRequest, reply: FastifyReply, validated: EmbeddingsRequest): Promise<OpenAIEmbeddingsResponse> {
  const { body, inputs, encoding } = validated;
  const limit = perCallLimit(request, body.model);
  const options = { family: 'embeddings' as const, model: body.model, request, reply };
  const chunks: Array<{ input: string[] | number[][]; titles?: Array<string | null> }> = [];
  for (let start = 0; start < inputs.length; start += limit) {
    const input = inputs.slice(start, start + limit);
    chunks.push(body.titles ? { input, titles: body.titles.slice(start, start + limit) } : { input });
  }
  if (chunks.length > 1) {
    reply.raw.setMaxListeners(reply.raw.getMaxListeners() + SPLIT_CONCURRENCY);
    request.raw.setMaxListeners(request.raw.getMaxListeners() + SPLIT_CONCURRENCY);
  }
  // As images do: each call records its usage as it lands; the request's is the sum once all have.
  try {
    const answers = await mapInTurns(chunks, SPLIT_CONCURRENCY, (chunk) =>
      dispatchJson({ ...options, body: { ...body, ...chunk }, client: { vectors: vectorsOf(encoding, chunk.input) } }),
    );
    request.gw.usage = answers.map((a) => a.usage).reduce(addUsage);
    return answers.length === 1 ? answers[0]!.body : joinAnswers(answers.map((a) => a.body), body.model);
  } catch (error) {
    request.gw.usage = undefined;
    throw error;
  }
}

/** What a call's translator knows of its inputs: the encoding, their count, and their tokens counted only if asked. */
function vectorsOf(encoding: EmbeddingEncoding, input: string[] | number[][]): NonNullable<TranslateContext['vectors']> {
  return {
    encoding,
    inputs: input.length,
    inputTokens: () => input.reduce((sum: number, item: string | number[]) => sum + (typeof item === 'string' ? countTokens(item) : item.length), 0),
  };
}

/**
 * The most inputs one call may carry on whichever channel serves it: the smallest limit among
 * the model's channels (vendor's, its model's, or the channel's own lower one), so any fallback
 * takes the same chunks.
 */
function perCallLimit(request: FastifyRequest, model: string): number {
  let limit = Number.POSITIVE_INFINITY;
  for (const channel of request.server.gateway.channels) {
    const pair = channel.provider.pairs.embeddings;
    if (!pair || !Object.hasOwn(channel.models, model)) continue;
    const forModel = pair.maxInputsFor?.(channel.models[model]!) ?? pair.maxInputsPerCall;
    limit = Math.min(limit, pair.maxInputsPerCall, forModel, channel.maxInputsPerCall ?? Number.POSITIVE_INFINITY);
  }
  return limit;
}

/** Runs `work` over the items, at most `width` at a time, answers in the items' order. */
async function mapInTurns<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

function joinAnswers(parts: readonly OpenAIEmbeddingsResponse[], model: string): OpenAIEmbeddingsResponse {
  const data: OpenAIEmbedding[] = [];
  let tokens = 0;
  for (const part of parts) {
    for (const item of part.data) data.push({ object: 'embedding', index: data.length, embedding: item.embedding });
    tokens += part.usage.prompt_tokens;
  }
  return { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

const addUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: 0,
  reasoningTokens: 0,
  totalTokens: a.totalTokens + b.totalTokens,
});
