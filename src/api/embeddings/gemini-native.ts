import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../../catalog/catalog.js';
import { GatewayError } from '../../errors.js';
import {
  GEMINI_EMBED_METHODS,
  GEMINI_TASK_TYPES,
  inputTypeOfTask,
  type GeminiBatchEmbedContentsResponse,
  type GeminiEmbedContentRequest,
  type GeminiEmbedContentResponse,
  type GeminiEmbedMethod,
} from '../../protocols/gemini-embed/types.js';
import type { OpenAIEmbeddingsRequest } from '../../protocols/openai-embeddings/types.js';
import { embedValidated } from './routes.js';
import { MAX_INPUTS, validateEmbeddingsRequest } from './schemas.js';

/**
 * The Gemini-native embedding surface (`{model}:embedContent`, `{model}:batchEmbedContents`) over
 * the embeddings family: any channel that serves the model answers it, a Gemini upstream with the
 * client's own taskType and titles, others with the normalised `input_type`. So
 * `@google/genai`'s `models.embedContent` works unchanged against the gateway.
 */

/** `{model}:{method}` of a path segment when the method embeds and the model is served on the embeddings family. */
export function geminiEmbedCall(catalog: Catalog, segment: string): { model: string; method: GeminiEmbedMethod } | undefined {
  const colon = segment.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const method = segment.slice(colon + 1) as GeminiEmbedMethod;
  const model = segment.slice(0, colon);
  if (!GEMINI_EMBED_METHODS.includes(method) || !catalog.servesModel('embeddings', model)) return undefined;
  return { model, method };
}

export async function geminiEmbed(request: FastifyRequest, reply: FastifyReply, model: string, method: GeminiEmbedMethod): Promise<GeminiEmbedContentResponse | GeminiBatchEmbedContentsResponse> {
  const items = method === 'embedContent' ? [embedRequestOf(request.body, model, '')] : batchOf(request.body, model);
  const body = openAIBodyOf(model, items);
  const answer = await embedValidated(request, reply, validateEmbeddingsRequest(body, request.server.gateway.catalog));
  // The family was asked for floats, so every vector is an array.
  const embeddings = answer.data.map((item) => ({ values: item.embedding as number[] }));
  return method === 'embedContent' ? { embedding: embeddings[0]! } : { embeddings };
}

const invalid = (field: string, message: string) => new GatewayError('GW_REQ_INVALID_PARAM', message, { param: field });

function batchOf(value: unknown, model: string): GeminiEmbedContentRequest[] {
  const requests = (value as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests) || requests.length === 0) throw invalid('requests', '* BatchEmbedContentsRequest.requests: must be a non-empty list');
  if (requests.length > MAX_INPUTS) throw invalid('requests', `* BatchEmbedContentsRequest.requests: at most ${MAX_INPUTS} requests can be in one batch`);
  return requests.map((item, i) => embedRequestOf(item, model, `requests[${i}].`));
}

function embedRequestOf(value: unknown, model: string, at: string): GeminiEmbedContentRequest {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${at}content`, `* ${at}content: the request must be a JSON object`);
  const item = value as GeminiEmbedContentRequest;
  if (item.model !== undefined && item.model !== `models/${model}` && item.model !== model) {
    throw invalid(`${at}model`, `* ${at}model: '${String(item.model)}' does not match the model of the path, models/${model}`);
  }
  const parts = item.content?.parts;
  if (!Array.isArray(parts) || parts.length === 0) throw invalid(`${at}content`, `* ${at}content.parts: must be a non-empty list`);
  if (!parts.some((part) => typeof part?.text === 'string' && part.text !== '')) throw invalid(`${at}content`, `* ${at}content.parts: only text parts can be embedded, and one must be non-empty`);
  if (item.taskType !== undefined && !(GEMINI_TASK_TYPES as readonly string[]).includes(item.taskType)) {
    throw invalid(`${at}taskType`, `* ${at}taskType: must be one of ${GEMINI_TASK_TYPES.join(', ')}`);
  }
  if (item.title !== undefined && typeof item.title !== 'string') throw invalid(`${at}title`, `* ${at}title: must be a string`);
  const dims = item.outputDimensionality;
  if (dims !== undefined && (!Number.isInteger(dims) || dims < 1)) throw invalid(`${at}outputDimensionality`, `* ${at}outputDimensionality: must be a positive integer`);
  return item;
}

/**
 * One OpenAI-shaped request of the family: one input per content (its text parts joined, as the
 * API embeds a content's parts together). A batch is one upstream configuration, so its requests
 * must agree on taskType and outputDimensionality (@google/genai sends one config for all).
 */
function openAIBodyOf(model: string, items: readonly GeminiEmbedContentRequest[]): OpenAIEmbeddingsRequest {
  const first = items[0]!;
  items.forEach((item, i) => {
    if (item.taskType !== first.taskType || item.outputDimensionality !== first.outputDimensionality) {
      throw invalid(`requests[${i}]`, '* BatchEmbedContentsRequest.requests: every request of a batch must have the same taskType and outputDimensionality');
    }
  });
  const input = items.map((item) => item.content.parts.map((part) => part.text ?? '').join('\n'));
  const inputType = inputTypeOfTask(first.taskType);
  const titles = items.some((item) => item.title !== undefined) ? items.map((item) => item.title ?? null) : undefined;
  return {
    model,
    input,
    encoding_format: 'float',
    ...(first.outputDimensionality !== undefined ? { dimensions: first.outputDimensionality } : {}),
    ...(inputType ? { input_type: inputType } : {}),
    ...(first.taskType ? { gemini_task_type: first.taskType } : {}),
    ...(titles ? { titles } : {}),
  };
}
