import type { GeminiContent, GeminiFunctionCall, GeminiFunctionDeclaration, GeminiGenerateContentRequest, GeminiGenerationConfig, GeminiPart } from '../../protocols/gemini-generate/types.js';
import { decideToolCalls, type SimToolChoice } from '../../simulator/tool-calls.js';
import type { SimOutputFormat } from '../../simulator/structured-output.js';
import { geminiSchemaToJsonSchema } from './simulator-schema.js';
import { tokenLogprobs } from '../../simulator/logprobs.js';
import type { SimulatedText } from '../../simulator/text.js';

/** What the Gemini simulator reads of a request to act like an agent's model: function calling, JSON output, logprobs. */

/** Reads a generationConfig key in either proto-JSON casing. */
export function configValue<T>(config: Record<string, unknown> | undefined, camel: string, snake: string): T | undefined {
  return (config?.[camel] ?? config?.[snake]) as T | undefined;
}

export const countParts = (content: GeminiContent | undefined, kind: 'functionCall' | 'functionResponse'): number =>
  content?.parts.filter((p) => p[kind] !== undefined || p[kind === 'functionCall' ? 'function_call' : 'function_response'] !== undefined).length ?? 0;

export const partsText = (parts: readonly GeminiPart[] | undefined): string =>
  (parts ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).filter(Boolean).join(' ');

/**
 * Function calls per toolConfig.functionCallingConfig (tool-calls.ts): mode ANY calls (limited to
 * allowedFunctionNames), AUTO calls what the user's last text is about, never right after
 * function responses; NONE never; one call per turn. Arguments are sampled from each
 * declaration's schema.
 */
export function pickFunctionCalls(body: GeminiGenerateContentRequest, lastUser: GeminiContent): GeminiFunctionCall[] {
  const tools = (body.tools ?? []) as Array<{ functionDeclarations?: GeminiFunctionDeclaration[]; function_declarations?: GeminiFunctionDeclaration[] }>;
  const declarations = tools.flatMap((t) => (t && (t.functionDeclarations ?? t.function_declarations)) || []).filter((d) => !!d && typeof d.name === 'string');
  const toolConfig = (body.toolConfig ?? body.tool_config) as Record<string, unknown> | undefined;
  const calling = configValue<{ mode?: string; allowedFunctionNames?: string[]; allowed_function_names?: string[] }>(toolConfig, 'functionCallingConfig', 'function_calling_config');
  const allowed = calling?.allowedFunctionNames ?? calling?.allowed_function_names;
  const mode = calling?.mode ?? 'AUTO';
  const choice: SimToolChoice =
    mode === 'NONE' ? { mode: 'none' } : mode === 'ANY' ? (allowed ? { mode: 'named', names: allowed } : { mode: 'required' }) : { mode: 'auto' };
  const calls = decideToolCalls({
    tools: declarations.map((d) => {
      const declaration = d as GeminiFunctionDeclaration & { parametersJsonSchema?: unknown; parameters_json_schema?: unknown; parameters?: unknown };
      const jsonSchema = declaration.parametersJsonSchema ?? declaration.parameters_json_schema;
      return { name: d.name, parameters: jsonSchema ?? (declaration.parameters ? geminiSchemaToJsonSchema(declaration.parameters) : undefined) };
    }),
    choice,
    // Gemini has no parallel-calls switch: one call per turn, as its models mostly make.
    isParallel: false,
    prompt: partsText(lastUser.parts),
    hasToolResults: countParts(lastUser, 'functionResponse') > 0,
  });
  return calls.map((call) => ({ name: call.name, args: call.arguments as Record<string, unknown> }));
}

/** responseMimeType application/json with responseJsonSchema or responseSchema (gemini.md "Request"). */
export function outputFormatOf(config: GeminiGenerationConfig | undefined): SimOutputFormat {
  const mime = configValue<string>(config, 'responseMimeType', 'response_mime_type');
  const jsonSchema = configValue<unknown>(config, 'responseJsonSchema', 'response_json_schema');
  const schema = configValue<unknown>(config, 'responseSchema', 'response_schema');
  if (jsonSchema !== undefined) return { kind: 'json_schema', schema: jsonSchema };
  if (schema !== undefined) return { kind: 'json_schema', schema: geminiSchemaToJsonSchema(schema) };
  return mime === 'application/json' ? { kind: 'json_object' } : undefined;
}

/** generationConfig.responseLogprobs (+ `logprobs` alternatives): Gemini's LogprobsResult on the finishing candidate. */
export function logprobsResult(text: SimulatedText, topCount: number): { avgLogprobs: number; logprobsResult: unknown } {
  const entries = tokenLogprobs(text.contentPieces, Math.max(1, topCount));
  const chosen = entries.map((e) => ({ token: e.token, logProbability: e.logprob }));
  const average = chosen.length > 0 ? chosen.reduce((sum, c) => sum + c.logProbability, 0) / chosen.length : 0;
  return {
    avgLogprobs: average,
    logprobsResult: {
      chosenCandidates: chosen,
      topCandidates: topCount > 0 ? entries.map((e) => ({ candidates: e.top_logprobs.map((t) => ({ token: t.token, logProbability: t.logprob })) })) : [],
    },
  };
}
