import { sampleJsonSchema } from './json-schema-sample.js';

/**
 * Structured output as the vendors promise it: `json_schema` formats give JSON that parses and
 * validates against the schema (sampled deterministically from the prompt); `json_object` gives
 * an object. Returns undefined when no JSON was asked for.
 */
export type SimOutputFormat = { kind: 'json_schema'; schema: unknown } | { kind: 'json_object' } | undefined;

export function structuredContent(format: SimOutputFormat, prompt: string, plainReply: string): string | undefined {
  if (!format) return undefined;
  if (format.kind === 'json_object') return JSON.stringify({ reply: plainReply });
  return JSON.stringify(sampleJsonSchema(format.schema, prompt).value);
}
