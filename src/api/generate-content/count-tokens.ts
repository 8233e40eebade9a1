import { Type } from 'typebox';
import type { GeminiContent, GeminiPart } from '../../protocols/gemini-generate/types.js';
import { countTokens } from '../../tokens/tokenizer.js';

/** Tokens an input image or file counts for (what Gemini bills a small image). */
const MEDIA_PART_TOKENS = 258;

const Content = Type.Object({ role: Type.Optional(Type.String()), parts: Type.Array(Type.Object({}), { minItems: 1 }) });

/**
 * countTokens body (js-genai `CountTokensParameters` as sent to the Gemini API): `contents`, or a
 * whole `generateContentRequest` whose contents, system instruction and tools count.
 */
export const CountTokensRequestSchema = Type.Object(
  {
    contents: Type.Optional(Type.Array(Content)),
    generateContentRequest: Type.Optional(Type.Object({ contents: Type.Array(Content) })),
  },
  { title: 'CountTokensRequest' },
);

interface CountTokensBody {
  contents?: GeminiContent[];
  generateContentRequest?: { contents: GeminiContent[]; systemInstruction?: GeminiContent; tools?: unknown[] };
}

const partTokens = (part: GeminiPart): number => {
  if (typeof part.text === 'string') return countTokens(part.text);
  if (part.inlineData || part.inline_data || part.fileData || part.file_data) return MEDIA_PART_TOKENS;
  const structured = part.functionCall ?? part.functionResponse ?? part.function_call ?? part.function_response;
  return structured === undefined ? 0 : countTokens(JSON.stringify(structured));
};

const contentTokens = (contents: readonly GeminiContent[] | undefined): number =>
  (contents ?? []).reduce((sum, content) => sum + content.parts.reduce((s, part) => s + partTokens(part), 0), 0);

/**
 * `{totalTokens}` counted locally with the gateway's tokenizer (the one its limits use), so the
 * answer is free, instant and the same whichever vendor serves the model; a vendor's own
 * tokenizer may count a few tokens differently.
 */
export function countTokensOf(body: CountTokensBody): { totalTokens: number } {
  const request = body.generateContentRequest;
  const tools = request?.tools ? countTokens(JSON.stringify(request.tools)) : 0;
  const system = request?.systemInstruction ? contentTokens([request.systemInstruction]) : 0;
  return { totalTokens: contentTokens(body.contents) + contentTokens(request?.contents) + system + tools };
}
