import type { EndpointFamily } from '../contracts/endpoint-family.js';
import type { Usage } from '../contracts/usage.js';
import type { SpanAttributes } from './tracing.js';

/**
 * `gen_ai.operation.name` per endpoint family: the GenAI conventions' well-known values where one
 * fits (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/). Image and video
 * generation have none yet, so they get plain names of our own; asset uploads are no model call.
 */
const OPERATION_BY_FAMILY = {
  'chat-completions': 'chat',
  messages: 'chat',
  responses: 'chat',
  'generate-content': 'generate_content',
  images: 'image_generation',
  'video-generations': 'video_generation',
  videoalt: 'video_generation',
  'cloud-asset': undefined,
  embeddings: 'embeddings',
  // The GenAI conventions name no rerank operation yet.
  rerank: undefined,
} as const satisfies Record<EndpointFamily, string | undefined>;

export function operationNameOf(family: EndpointFamily | undefined): string | undefined {
  return family === undefined ? undefined : OPERATION_BY_FAMILY[family];
}

/** `gen_ai.usage.*`; reasoning tokens are inside the output tokens, as the conventions count them. */
export function usageAttributes(usage: Usage | undefined): SpanAttributes {
  if (!usage) return {};
  return {
    'gen_ai.usage.input_tokens': usage.promptTokens,
    'gen_ai.usage.output_tokens': usage.completionTokens,
    'gen_ai.usage.reasoning.output_tokens': usage.reasoningTokens || undefined,
  };
}

/**
 * `gen_ai.request.*` read from the top of a request body, where each family keeps them:
 * chat and messages (`max_tokens`, `max_completion_tokens`), responses (`max_output_tokens`),
 * generateContent (`generationConfig`). Nothing is parsed that was not parsed already.
 */
export function requestParameterAttributes(body: unknown): SpanAttributes {
  if (typeof body !== 'object' || body === null) return {};
  const fields = body as Record<string, unknown>;
  const generation = typeof fields.generationConfig === 'object' && fields.generationConfig !== null ? (fields.generationConfig as Record<string, unknown>) : undefined;
  return {
    'gen_ai.request.max_tokens': numberOrUndefined(fields.max_tokens ?? fields.max_completion_tokens ?? fields.max_output_tokens ?? generation?.maxOutputTokens),
    'gen_ai.request.temperature': numberOrUndefined(fields.temperature ?? generation?.temperature),
    'gen_ai.request.top_p': numberOrUndefined(fields.top_p ?? generation?.topP),
    'gen_ai.request.stream': fields.stream === true ? true : undefined,
  };
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
