import { GatewayError } from '../../errors.js';
import type { GeminiContent, GeminiGenerationConfig, GeminiPart, GeminiTool, GeminiToolConfig, GenerateContentCall } from '../../protocols/gemini-generate/types.js';
import type { OpenAIChatContentPart, OpenAIChatMessage, OpenAIChatRequest, OpenAIChatTool, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import type { TranslateContext } from '../../contracts/translator.js';

const refuse = (param: string, what: string): GatewayError =>
  new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': ${what} is not supported for this model: its channel answers through chat completions`, { param });

/**
 * Request fields a chat upstream has no use for, left out on purpose (docs/decisions.md, "The chat
 * hub"): safety thresholds (the upstream applies its own policy) and labels.
 */
const HINT_FIELDS = new Set(['safetySettings', 'safety_settings', 'labels']);
const MAPPED_FIELDS = new Set(['contents', 'systemInstruction', 'system_instruction', 'generationConfig', 'generation_config', 'tools', 'toolConfig', 'tool_config']);

/**
 * A Gemini generateContent request as a chat request (the gateway's hub): `systemInstruction` → a
 * system message; `user`/`model` turns → user/assistant messages; text and inline images → parts;
 * `functionCall` parts → the assistant's `tool_calls`, `functionResponse` parts → tool messages
 * answering them (by id, else by name in call order); function declarations → function tools;
 * `functionCallingConfig` → `tool_choice`; sampling settings → their chat fields. Thought parts
 * are dropped: only Gemini can use its thought signatures. What chat cannot carry (built-in tools,
 * cached content, several candidates, image output, files by URI) is refused with a 400 naming it.
 */
export function geminiToChatRequest(call: GenerateContentCall, ctx: TranslateContext): OpenAIChatRequest {
  const req = call.body;
  for (const field of Object.keys(req)) {
    if (!MAPPED_FIELDS.has(field) && !HINT_FIELDS.has(field)) throw refuse(field, `the field '${field}'`);
  }
  const messages: OpenAIChatMessage[] = [];
  const system = (req.systemInstruction ?? (req as { system_instruction?: GeminiContent }).system_instruction)?.parts ?? [];
  const systemText = system.map((part) => part.text ?? '').join('\n');
  if (systemText) messages.push({ role: 'system', content: systemText });
  const calls = new CallIds(ctx.requestId);
  req.contents.forEach((content, index) => appendContent(messages, content, index, calls));
  const body: OpenAIChatRequest = { model: ctx.model, messages };
  applyGenerationConfig(body, req.generationConfig ?? (req as { generation_config?: GeminiGenerationConfig }).generation_config);
  const tools = toChatTools(req.tools);
  if (tools) body.tools = tools;
  const choice = toChatToolChoice(req.toolConfig ?? (req as { tool_config?: GeminiToolConfig }).tool_config);
  if (choice !== undefined) body.tool_choice = choice;
  if (call.method === 'streamGenerateContent') {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

/**
 * Chat answers calls by id, Gemini by name (with an id on some models only): calls without an id
 * get one, and a response without an id answers the oldest open call of its name.
 */
class CallIds {
  private readonly open = new Map<string, string[]>();
  private count = 0;
  constructor(private readonly requestId: string) {}

  forCall(name: string, id: string | undefined): string {
    const assigned = id ?? `call_${this.requestId}_h${this.count++}`;
    this.open.set(name, [...(this.open.get(name) ?? []), assigned]);
    return assigned;
  }

  forResponse(name: string, id: string | undefined): string {
    const waiting = this.open.get(name) ?? [];
    const at = id === undefined ? 0 : waiting.indexOf(id);
    if (at >= 0 && waiting.length > 0) return waiting.splice(at, 1)[0]!;
    return id ?? `call_${this.requestId}_h${this.count++}`;
  }
}

function appendContent(messages: OpenAIChatMessage[], content: GeminiContent, index: number, calls: CallIds): void {
  const parts: OpenAIChatContentPart[] = [];
  const toolCalls: OpenAIChatToolCall[] = [];
  let text = '';
  content.parts.forEach((part, j) => {
    const param = `contents[${index}].parts[${j}]`;
    if (part.thought === true) return;
    const functionCall = part.functionCall ?? (part.function_call as GeminiPart['functionCall']);
    const functionResponse = part.functionResponse ?? (part.function_response as GeminiPart['functionResponse']);
    if (functionCall) {
      toolCalls.push({ id: calls.forCall(functionCall.name, functionCall.id), type: 'function', function: { name: functionCall.name, arguments: JSON.stringify(functionCall.args ?? {}) } });
    } else if (functionResponse) {
      const id = calls.forResponse(functionResponse.name, (functionResponse as { id?: string }).id);
      messages.push({ role: 'tool', tool_call_id: id, content: JSON.stringify(functionResponse.response ?? {}) });
    } else if (typeof part.text === 'string') {
      if (content.role === 'model') text += part.text;
      else parts.push({ type: 'text', text: part.text });
    } else if (part.inlineData || part.inline_data) {
      parts.push(imagePart(part, param));
    } else if (!part.thoughtSignature) {
      throw refuse(param, 'this kind of part');
    }
  });
  if (content.role === 'model') {
    if (!text && toolCalls.length === 0) return;
    const message: OpenAIChatMessage = { role: 'assistant', content: toolCalls.length > 0 && !text ? null : text };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    messages.push(message);
  } else if (parts.length > 0) {
    messages.push({ role: 'user', content: parts });
  }
}

function imagePart(part: GeminiPart, param: string): OpenAIChatContentPart {
  const mimeType = part.inlineData?.mimeType ?? part.inline_data?.mime_type ?? '';
  const data = part.inlineData?.data ?? part.inline_data?.data ?? '';
  if (!mimeType.startsWith('image/')) throw refuse(param, `inline data of type '${mimeType}'`);
  return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
}

function applyGenerationConfig(body: OpenAIChatRequest, config: GeminiGenerationConfig | undefined): void {
  if (!config) return;
  if (config.candidateCount !== undefined && config.candidateCount !== 1) throw refuse('generationConfig.candidateCount', 'more than one candidate');
  if (config.responseModalities?.some((modality) => modality !== 'TEXT')) throw refuse('generationConfig.responseModalities', 'output other than text');
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.topP !== undefined) body.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) body.max_tokens = config.maxOutputTokens;
  if (config.stopSequences && config.stopSequences.length > 0) body.stop = [...config.stopSequences];
  if (config.seed !== undefined) body.seed = config.seed;
  if (config.presencePenalty !== undefined) body.presence_penalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) body.frequency_penalty = config.frequencyPenalty;
  const schema = config.responseJsonSchema ?? (config.responseSchema === undefined ? undefined : lowerCaseTypes(config.responseSchema));
  if (schema !== undefined) body.response_format = { type: 'json_schema', json_schema: { name: 'response', schema } };
  else if (config.responseMimeType === 'application/json') body.response_format = { type: 'json_object' };
}

function toChatTools(tools: GeminiTool[] | undefined): OpenAIChatTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  const out: OpenAIChatTool[] = [];
  tools.forEach((tool, i) => {
    for (const field of Object.keys(tool)) if (field !== 'functionDeclarations') throw refuse(`tools[${i}].${field}`, `the built-in tool '${field}'`);
    for (const declaration of tool.functionDeclarations ?? []) {
      const parameters = declaration.parametersJsonSchema ?? (declaration.parameters === undefined ? undefined : lowerCaseTypes(declaration.parameters));
      out.push({
        type: 'function',
        function: {
          name: declaration.name,
          ...(declaration.description !== undefined ? { description: declaration.description } : {}),
          ...(parameters !== undefined ? { parameters: parameters as Record<string, unknown> } : {}),
        },
      });
    }
  });
  return out.length > 0 ? out : undefined;
}

function toChatToolChoice(config: GeminiToolConfig | undefined): OpenAIChatRequest['tool_choice'] | undefined {
  const calling = config?.functionCallingConfig;
  switch (calling?.mode) {
    case undefined:
      return undefined;
    case 'NONE':
      return 'none';
    case 'ANY': {
      const names = calling.allowedFunctionNames ?? [];
      return names.length === 1 ? { type: 'function', function: { name: names[0]! } } : 'required';
    }
    default:
      return 'auto';
  }
}

/** Gemini's OpenAPI-subset schemas name types in capitals (`OBJECT`); JSON Schema's are lower case. */
function lowerCaseTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerCaseTypes);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === 'type' && typeof value === 'string' ? value.toLowerCase() : lowerCaseTypes(value)]),
  );
}
