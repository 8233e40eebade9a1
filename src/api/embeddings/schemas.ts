import { Type } from 'typebox';
import type { Catalog } from '../../catalog/catalog.js';
import { GatewayError } from '../../errors.js';
import type { EmbeddingEncoding, OpenAIEmbeddingsRequest } from '../../protocols/openai-embeddings/types.js';
import { countTokens } from '../../tokens/tokenizer.js';

/** OpenAI's limit on inputs per request (embeddings.md §1). */
export const MAX_INPUTS = 2048;

/** The request as documented (the OpenAPI page); validation is validateEmbeddingsRequest's, for its exact `param` names. */
export const EmbeddingsRequestDoc = Type.Object(
  {
    model: Type.String(),
    input: Type.Union([Type.String(), Type.Array(Type.String()), Type.Array(Type.Integer()), Type.Array(Type.Array(Type.Integer()))], { description: 'One text, up to 2,048 texts, one token array or up to 2,048 token arrays' }),
    encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64')], { description: 'base64: little-endian float32 (what the official SDKs ask for)' })),
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    user: Type.Optional(Type.String()),
    input_type: Type.Optional(Type.Union([Type.Literal('query'), Type.Literal('document')], { description: "The gateway's retrieval role, translated for vendors that embed queries and documents differently (Cohere, Voyage, Gemini); not sent to OpenAI-compatible upstreams" })),
  },
  { title: 'CreateEmbeddingRequest' },
);

/** A validated request: the inputs as a list (strings or token arrays), in the client's order. */
export interface EmbeddingsRequest {
  body: OpenAIEmbeddingsRequest;
  inputs: string[] | number[][];
  encoding: EmbeddingEncoding;
}

const invalid = (param: string, message: string) => new GatewayError('GW_REQ_INVALID_PARAM', message, { param });

/**
 * OpenAI's rules, each refusal naming its parameter: an embedding model of the catalog (a chat
 * model is told it is one), a non-empty input of at most 2,048 items with no empty text, a known
 * encoding, and `dimensions` only where the model can shorten its vectors, within their length.
 */
export function validateEmbeddingsRequest(value: unknown, catalog: Catalog): EmbeddingsRequest {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('body', 'The request body must be a JSON object');
  const body = value as OpenAIEmbeddingsRequest;
  if (typeof body.model !== 'string' || body.model === '') throw invalid('model', "'model' is required");
  if (!catalog.servesModel('embeddings', body.model)) {
    if (catalog.isServed(body.model)) throw invalid('model', `'${body.model}' is not an embedding model; use one of: ${catalog.modelsFor('embeddings').join(', ')}`);
    throw invalid('model', `'model' must be one of: ${catalog.modelsFor('embeddings').join(', ')}`);
  }
  const inputs = inputsOf(body.input);
  const encoding = body.encoding_format ?? 'float';
  if (encoding !== 'float' && encoding !== 'base64') throw invalid('encoding_format', "'encoding_format' must be 'float' or 'base64'");
  if (body.user !== undefined && typeof body.user !== 'string') throw invalid('user', "'user' must be a string");
  if (body.input_type !== undefined && body.input_type !== 'query' && body.input_type !== 'document') throw invalid('input_type', "'input_type' must be 'query' or 'document'");
  const traits = catalog.find(body.model)?.embedding;
  if (body.dimensions !== undefined) {
    if (!Number.isInteger(body.dimensions) || body.dimensions < 1) throw invalid('dimensions', "'dimensions' must be a positive integer");
    if (traits && !traits.canShorten) throw invalid('dimensions', `'${body.model}' does not support 'dimensions'`);
    if (traits && body.dimensions > traits.dimensions) throw invalid('dimensions', `'dimensions' must be at most ${traits.dimensions} for '${body.model}'`);
  }
  if (traits) checkInputTokens(inputs, traits.maxInputTokens);
  return { body, inputs, encoding };
}

function inputsOf(input: unknown): string[] | number[][] {
  if (input === undefined || input === null) throw invalid('input', "'input' is required");
  if (typeof input === 'string') {
    if (input === '') throw invalid('input', "'input' must not be an empty string");
    return [input];
  }
  if (!Array.isArray(input)) throw invalid('input', "'input' must be a string, an array of strings, an array of token ids or an array of token-id arrays");
  if (input.length === 0) throw invalid('input', "'input' must not be empty");
  if (input.length > MAX_INPUTS) throw invalid('input', `'input' may have at most ${MAX_INPUTS} items; this request has ${input.length}`);
  if (typeof input[0] === 'string') {
    for (let i = 0; i < input.length; i++) {
      const item: unknown = input[i];
      if (typeof item !== 'string') throw invalid(`input[${i}]`, "'input' must not mix strings with other values");
      if (item === '') throw invalid(`input[${i}]`, `'input[${i}]' must not be an empty string`);
    }
    return input as string[];
  }
  if (typeof input[0] === 'number') {
    if (!input.every(isTokenId)) throw invalid('input', "'input' token ids must be non-negative integers");
    return [input as number[]];
  }
  for (let i = 0; i < input.length; i++) {
    const item: unknown = input[i];
    if (!Array.isArray(item) || !item.every(isTokenId)) throw invalid(`input[${i}]`, `'input[${i}]' must be an array of non-negative integer token ids`);
    if (item.length === 0) throw invalid(`input[${i}]`, `'input[${i}]' must not be empty`);
  }
  return input as number[][];
}

const isTokenId = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;

/**
 * Each input within the model's token limit. A token is at least one byte, so a text of fewer
 * bytes than the limit is never counted: only long texts pay the tokenizer.
 */
function checkInputTokens(inputs: string[] | number[][], limit: number): void {
  for (let i = 0; i < inputs.length; i++) {
    const item = inputs[i]!;
    const tokens = typeof item === 'string' ? (Buffer.byteLength(item) > limit ? countTokens(item) : 0) : item.length;
    if (tokens > limit) throw invalid(inputs.length === 1 ? 'input' : `input[${i}]`, `This input has about ${tokens} tokens, more than the model's limit of ${limit}`);
  }
}
