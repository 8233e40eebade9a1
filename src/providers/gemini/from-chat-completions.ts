import { GatewayError } from '../../errors.js';
import { assertChatToolShapes } from '../../protocols/openai-chat/tool-shapes.js';
import type {
  GeminiCandidate,
  GeminiGenerateContentRequest,
  GeminiGenerationConfig,
  GeminiTool,
  GeminiToolConfig,
} from '../../protocols/gemini-generate/types.js';
import type { OpenAIChatCompletion, OpenAIChatRequest, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import type { TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { chatCompletionId, mapFinishReason, toChatUsage, toToolCall } from './chat-response-mapping.js';
import { geminiModelPath } from './endpoint.js';
import { createChatCompletionsStreamTranslator } from './from-chat-completions-stream.js';
import { toGeminiContents } from './to-gemini-contents.js';
import { asGeminiResponse, geminiErrorToGateway, usageFromGemini } from './wire.js';

type Choice = OpenAIChatCompletion['choices'][number];

/**
 * Chat-shaped requests (from /v1/chat/completions and /v1/messages) to Gemini generateContent
 * (gemini.md "Request"). Sampling options move into `generationConfig`; tools become
 * `functionDeclarations`. Penalties of 0 are not sent: 0 is the no-op on both sides, and the
 * 2.5 models refuse any penalty field with "Penalty is not enabled" (vercel/ai#8943), which the
 * spec's /v1/messages defaults (penalties 0) would otherwise trigger on every request.
 */
export const chatCompletionsToGemini: TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion> = {
  toUpstream(req: OpenAIChatRequest, ctx: TranslateContext): UpstreamCall {
    rejectUnsupported(req);
    assertChatToolShapes(req);
    const { systemInstruction, contents } = toGeminiContents(req.messages);
    const body: GeminiGenerateContentRequest = { contents };
    if (systemInstruction) body.systemInstruction = systemInstruction;
    const tools = toGeminiTools(req);
    if (tools) body.tools = tools;
    // OpenAI chat's web search (the chat hub sends it for a Responses web_search tool) is Gemini's Google Search grounding.
    if (req.web_search_options && typeof req.web_search_options === 'object') body.tools = [...(body.tools ?? []), { googleSearch: {} }];
    const toolConfig = toGeminiToolConfig(req);
    if (toolConfig) body.toolConfig = toolConfig;
    const generationConfig = toGenerationConfig(req);
    if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
    if (!req.stream) return { method: 'POST', path: geminiModelPath(ctx.upstreamModel, 'generateContent'), body };
    return { method: 'POST', path: geminiModelPath(ctx.upstreamModel, 'streamGenerateContent'), query: { alt: 'sse' }, body };
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIChatCompletion; usage: Usage } {
    const response = asGeminiResponse(res);
    const candidates = response.candidates ?? [];
    // A blocked prompt has no candidates, only promptFeedback (gemini.md "Response").
    const choices: Choice[] = candidates.length > 0
      ? candidates.map((candidate, position) => toChoice(candidate, position, ctx.requestId))
      : response.promptFeedback?.blockReason
        ? [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }]
        : [];
    if (choices.length === 0) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned neither candidates nor a block reason');
    const body: OpenAIChatCompletion = {
      id: chatCompletionId(response.responseId, ctx.requestId),
      object: 'chat.completion',
      created: ctx.now,
      model: ctx.model,
      choices,
      usage: toChatUsage(response.usageMetadata),
    };
    return { body, usage: usageFromGemini(response.usageMetadata, 0) };
  },

  createStreamTranslator: createChatCompletionsStreamTranslator,
  fromUpstreamError: geminiErrorToGateway,
};

function toChoice(candidate: GeminiCandidate, position: number, requestId: string): Choice {
  const index = candidate.index ?? position;
  let text = '';
  let reasoning = '';
  const toolCalls: OpenAIChatToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toToolCall(part.functionCall, requestId, index, toolCalls.length, part.thoughtSignature));
    else if (typeof part.text === 'string') {
      if (part.thought === true) reasoning += part.text;
      else text += part.text;
    }
  }
  return {
    index,
    message: {
      role: 'assistant',
      content: toolCalls.length > 0 && !text ? null : text,
      ...(reasoning ? { reasoning_content: reasoning } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    finish_reason: mapFinishReason(candidate.finishReason, toolCalls.length > 0),
  };
}

function toGenerationConfig(req: OpenAIChatRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.top_p !== undefined) config.topP = req.top_p;
  if (req.stop !== undefined) config.stopSequences = typeof req.stop === 'string' ? [req.stop] : [...req.stop];
  if (req.n !== undefined) config.candidateCount = req.n;
  if (req.frequency_penalty) config.frequencyPenalty = req.frequency_penalty;
  if (req.presence_penalty) config.presencePenalty = req.presence_penalty;
  if (typeof req.seed === 'number') config.seed = req.seed;
  const format = req.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    const schema = (format.json_schema as { schema?: unknown } | undefined)?.schema;
    if (!schema || typeof schema !== 'object') {
      throw new GatewayError('GW_REQ_INVALID_PARAM', "'response_format.json_schema.schema' is required", { param: 'response_format.json_schema.schema' });
    }
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = schema;
  }
  return config;
}

/**
 * OpenAI's JSON Schema goes into `parametersJsonSchema`, which takes full JSON Schema; the older
 * `parameters` takes only an OpenAPI subset and refuses keys such as `additionalProperties`
 * (js-genai types.ts `FunctionDeclaration`). `strict` has no Gemini counterpart and is not sent.
 */
function toGeminiTools(req: OpenAIChatRequest): GeminiTool[] | undefined {
  if (!req.tools || req.tools.length === 0) return undefined;
  const functionDeclarations = req.tools.map((tool, index) => {
    if (tool.type !== 'function') {
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'tools[${index}].type' must be 'function' for this model's upstream`, { param: `tools[${index}].type` });
    }
    const { name, description, parameters } = tool.function;
    return { name, ...(description !== undefined ? { description } : {}), ...(parameters !== undefined ? { parametersJsonSchema: parameters } : {}) };
  });
  return [{ functionDeclarations }];
}

/** tool_choice → functionCallingConfig.mode: `required` is ANY, a named function is ANY limited to it. */
function toGeminiToolConfig(req: OpenAIChatRequest): GeminiToolConfig | undefined {
  const choice = req.tool_choice;
  if (choice === undefined) return undefined;
  const names = (req.tools ?? []).map((tool) => tool.function.name);
  if (typeof choice === 'object') {
    if (!names.includes(choice.function.name)) {
      throw new GatewayError('GW_REQ_INVALID_PARAM', "'tool_choice.function.name' must name one of 'tools'", { param: 'tool_choice.function.name' });
    }
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  if (names.length === 0) {
    if (choice === 'required') throw new GatewayError('GW_REQ_INVALID_PARAM', "'tool_choice' 'required' needs 'tools'", { param: 'tool_choice' });
    return undefined;
  }
  switch (choice) {
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    default:
      throw new GatewayError('GW_REQ_INVALID_PARAM', "'tool_choice' must be one of: none, auto, required, or a function", { param: 'tool_choice' });
  }
}

/** Options Gemini cannot honour are refused, naming the field, rather than silently ignored. */
function rejectUnsupported(req: OpenAIChatRequest): void {
  const refuse = (param: string, why: string): never => {
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}' ${why} for this model's upstream`, { param });
  };
  if (req.parallel_tool_calls === false) refuse('parallel_tool_calls', 'cannot be false');
  if (req.functions !== undefined || req.function_call !== undefined) refuse(req.functions !== undefined ? 'functions' : 'function_call', "is not supported (use 'tools')");
  if (req.logprobs === true) refuse('logprobs', 'is not supported');
  if (req.response_format && !['text', 'json_object', 'json_schema'].includes(req.response_format.type)) refuse('response_format.type', 'must be text, json_object or json_schema');
  if (req.logit_bias && typeof req.logit_bias === 'object' && Object.keys(req.logit_bias).length > 0) refuse('logit_bias', 'is not supported');
}
