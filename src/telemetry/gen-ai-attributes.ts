import type { RequestFacts } from '../contracts/request-facts.js';
import type { Usage } from '../contracts/usage.js';
import type { SpanAttributes } from './tracing.js';

// `gen_ai.operation.name` is each family's to declare on its routes (`config.operation`): the GenAI
// conventions' well-known values where one fits (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).

/** `gen_ai.usage.*`; reasoning tokens are inside the output tokens, as the conventions count them. */
export function usageAttributes(usage: Usage | undefined): SpanAttributes {
  if (!usage) return {};
  return {
    'gen_ai.usage.input_tokens': usage.promptTokens,
    'gen_ai.usage.output_tokens': usage.completionTokens,
    'gen_ai.usage.reasoning.output_tokens': usage.reasoningTokens || undefined,
  };
}

/** `gen_ai.request.*` from the family's facts of the request (api/<family>/facts.ts). */
export function requestParameterAttributes(facts: RequestFacts | undefined): SpanAttributes {
  if (!facts) return {};
  return {
    'gen_ai.request.max_tokens': facts.maxOutputTokens,
    'gen_ai.request.temperature': facts.temperature,
    'gen_ai.request.top_p': facts.topP,
    'gen_ai.request.stream': facts.isStream ? true : undefined,
  };
}
