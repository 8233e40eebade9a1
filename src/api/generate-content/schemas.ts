import { LIMITS } from '../../validation/limits.js';
import { Type, type TSchema } from 'typebox';
import { GatewayError } from '../../errors.js';
import { compileValidator } from '../../validation/compile.js';
import {
  GEMINI_IMAGE_ASPECT_RATIOS,
  GEMINI_IMAGE_SIZES,
  type GeminiGenerateContentRequest,
  type GeminiPart,
} from '../../protocols/gemini-generate/types.js';

/**
 * The native-style bodies (spec §8, §9). Gemini's REST API is proto-JSON and takes camelCase and
 * snake_case keys alike (gemini.md "Casing"), so each rule below is stated for both spellings;
 * otherwise `top_p: 5` would slip past the camelCase rule. Fields the spec does not list
 * (tools, safetySettings, maxOutputTokens, thinkingConfig…) are accepted and passed on.
 */
const enumOf = (values: readonly string[]) => Type.Unsafe<string>({ type: 'string', enum: [...values] });
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

// Proto-JSON bytes are base64, standard or URL-safe alphabet.
const Base64 = Type.String({ minLength: 1, pattern: '^[A-Za-z0-9+/_-]+={0,2}$' });
const MediaType = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$' });

const Part = Type.Object({
  text: opt(Type.String()),
  inlineData: opt(Type.Object({ mimeType: MediaType, data: Base64 })),
  inline_data: opt(Type.Object({ mime_type: MediaType, data: Base64 })),
  thought: opt(Type.Boolean()),
  thoughtSignature: opt(Type.String()),
});

const Content = Type.Object({
  // Optional as in Gemini (a turn without role is the user's; Google's own curl samples omit it).
  role: opt(enumOf(['user', 'model'])),
  parts: Type.Array(Part, { minItems: 1 }),
});

const SystemInstruction = Type.Object({
  role: opt(Type.String()),
  parts: Type.Array(Type.Object({ text: Type.String() }), { minItems: 1 }),
});

const AspectRatio = enumOf(GEMINI_IMAGE_ASPECT_RATIOS);
const ImageSize = enumOf(GEMINI_IMAGE_SIZES);
const Modalities = Type.Array(enumOf(['TEXT', 'IMAGE']));
const TopP = Type.Number({ minimum: 0, maximum: 1 });
const OutputTokens = Type.Integer({ minimum: 1, maximum: LIMITS.outputTokens });
const Candidates = Type.Integer({ minimum: 1, maximum: LIMITS.candidates });
const TopK = Type.Integer({ minimum: 1, maximum: LIMITS.topK });
const Seed = Type.Integer({ minimum: -LIMITS.seed, maximum: LIMITS.seed });
const ThinkingBudget = Type.Integer({ minimum: -1, maximum: LIMITS.thinkingBudget });
const ThinkingConfig = Type.Object({ thinkingBudget: opt(ThinkingBudget), thinking_budget: opt(ThinkingBudget) });

const ImageConfig = Type.Object({
  aspectRatio: opt(AspectRatio),
  aspect_ratio: opt(AspectRatio),
  imageSize: opt(ImageSize),
  image_size: opt(ImageSize),
});

const GenerationConfig = Type.Object({
  temperature: opt(Type.Number({ minimum: 0, maximum: 2 })),
  topP: opt(TopP),
  top_p: opt(TopP),
  responseModalities: opt(Modalities),
  response_modalities: opt(Modalities),
  imageConfig: opt(ImageConfig),
  image_config: opt(ImageConfig),
  // Acted on by the simulator and passed on: finite, the vendor's ranges.
  maxOutputTokens: opt(OutputTokens),
  max_output_tokens: opt(OutputTokens),
  candidateCount: opt(Candidates),
  candidate_count: opt(Candidates),
  topK: opt(TopK),
  top_k: opt(TopK),
  seed: opt(Seed),
  thinkingConfig: opt(ThinkingConfig),
  thinking_config: opt(ThinkingConfig),
});

export const GenerateContentRequestSchema = Type.Object(
  {
    contents: Type.Array(Content, { minItems: 1 }),
    systemInstruction: opt(SystemInstruction),
    system_instruction: opt(SystemInstruction),
    generationConfig: opt(GenerationConfig),
    generation_config: opt(GenerationConfig),
  },
  { title: 'GenerateContentRequest' },
);

export const GenerateContentQuerySchema = Type.Object({
  key: opt(Type.String()),
  // The spec's optional second parameter: `sse` asks for SSE explicitly; `json` is Google's default.
  alt: opt(enumOf(['sse', 'json'])),
});

const validateShape = compileValidator(GenerateContentRequestSchema);

/** The kinds of data a part may hold, both casings (function calling and files included). */
const DATA_KEYS = [
  'text', 'inlineData', 'inline_data', 'fileData', 'file_data', 'functionCall', 'function_call', 'functionResponse', 'function_response',
  'executableCode', 'executable_code', 'codeExecutionResult', 'code_execution_result',
] as const;
const hasInlineData = (part: GeminiPart): boolean => part.inlineData !== undefined || part.inline_data !== undefined;

/**
 * Rules a JSON schema states badly: a part holds exactly one kind of data (spec: `{text}` or an
 * inline_data part), and on the image endpoint a reference image travels with a text part in
 * the same parts array (spec §8). Model turns are exempt: they replay earlier output.
 */
function checkParts(body: GeminiGenerateContentRequest, isImageEndpoint: boolean): void {
  body.contents.forEach((content, i) => {
    content.parts.forEach((part, j) => {
      const kinds = DATA_KEYS.filter((key) => part[key] !== undefined);
      if (kinds.length !== 1) {
        const field = `contents[${i}].parts[${j}]`;
        throw new GatewayError('GW_REQ_INVALID_PARAM', `'${field}' must hold exactly one of: text, inline_data, file_data, function_call, function_response (either casing)`, { param: field });
      }
    });
    if (isImageEndpoint && content.role !== 'model' && content.parts.some(hasInlineData) && !content.parts.some((p) => typeof p.text === 'string')) {
      const field = `contents[${i}].parts`;
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${field}' with an inline_data reference image must also hold a text part`, { param: field });
    }
  });
}

/** Validates the body for one native endpoint; throws a 400 naming the field and the rule. */
export function validateGenerateContentRequest(options: { isImageModel: boolean }) {
  return (body: unknown): GeminiGenerateContentRequest => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new GatewayError('GW_REQ_INVALID_PARAM', 'Request body must be a JSON object', { param: 'body' });
    }
    const request = validateShape(body) as GeminiGenerateContentRequest;
    checkParts(request, options.isImageModel);
    return request;
  };
}

export const validateGenerateContentQuery = compileValidator(GenerateContentQuerySchema);
