import { formatSse } from '../../sse/write.js';
import type { OpenAIChatChunk, OpenAIChatCompletion, OpenAIChatMessage, OpenAIChatRequest, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import type { SimErrorBody, SimHandler, SimRequest, SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { countTokens, simulateText, stableId, tokenPieces, type SimulatedText } from '../../simulator/text.js';
import { answerPromptAfterTools, decideToolCalls, quotedRequest, type SimToolChoice } from '../../simulator/tool-calls.js';
import { structuredContent, type SimOutputFormat } from '../../simulator/structured-output.js';
import { tokenLogprobs } from '../../simulator/logprobs.js';
import { embeddingsSimRoutes } from '../../simulator/openai-embeddings.js';

/** OpenAI chat takes 1..128 choices. */
const MAX_CHOICES = 128;

export interface OpenAICompatibleSimOptions {
  vendor: string;
  /** Path prefix the vendor serves under (`/v1`, `/api/v3`, `/api/paas/v4`). */
  basePath: string;
  errorBody: SimErrorBody;
  /** Upstream model names that think before answering (reasoning_content). */
  isReasoningModel: (model: string) => boolean;
  /** Whether a `thinking: {type: "disabled"}` switch turns reasoning off (Ark, Zhipu). */
  hasThinkingSwitch: boolean;
  /** Usage on the final chunk without being asked (Zhipu) instead of only with include_usage. */
  alwaysStreamUsage: boolean;
  /** More routes under the same server (e.g. Ark's Responses API). */
  extraRoutes?: SimHandler;
  /** Tool types the vendor hosts besides functions (Zhipu's `web_search`, `retrieval`): accepted, never called by the simulator. */
  hostedToolTypes?: readonly string[];
}

/** A fake OpenAI-compatible chat server (openai.md §1): deterministic, token-counted, SSE. */
export function openAICompatibleSimulator(options: OpenAICompatibleSimOptions): SimulatorSpec {
  return {
    vendor: options.vendor,
    errorBody: options.errorBody,
    async handle(req, res) {
      if (req.method === 'POST' && req.path === `${options.basePath}/chat/completions`) {
        await chatCompletions(options, req, res);
        return true;
      }
      if (await embeddingsSimRoutes(options.basePath, options.errorBody, req, res)) return true;
      return options.extraRoutes ? options.extraRoutes(req, res) : false;
    },
  };
}

async function chatCompletions(options: OpenAICompatibleSimOptions, req: SimRequest, res: SimResponse): Promise<void> {
  const body = req.body as OpenAIChatRequest | undefined;
  if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0) {
    res.json(400, options.errorBody(400, 'model and a non-empty messages array are required'));
    return;
  }
  const toolProblem = toolsProblem(body.tools, options.hostedToolTypes ?? []);
  if (toolProblem) {
    res.json(400, options.errorBody(400, toolProblem));
    return;
  }
  const thinkingOff = options.hasThinkingSwitch && (body.thinking as { type?: string } | undefined)?.type === 'disabled';
  const withReasoning = options.isReasoningModel(body.model) && !thinkingOff;
  const toolResults = trailingToolResults(body.messages);
  const question = lastUserText(body.messages);
  const prompt = toolResults.length > 0 ? answerPromptAfterTools(quotedRequest(question), toolResults) : quotedRequest(question);
  const promptTokens = body.messages.reduce((sum, m) => sum + 3 + countTokens(messageText(m)), 3);
  const n = body.n ?? 1;
  // OpenAI's own bound: the simulator never generates more than a real vendor would (issue 13).
  if (!Number.isInteger(n) || n < 1 || n > MAX_CHOICES) {
    res.json(400, options.errorBody(400, `n must be an integer from 1 to ${MAX_CHOICES}`));
    return;
  }
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const toolCalls = pickToolCalls(body, question, toolResults.length > 0);
  const hasCalls = toolCalls.length > 0;
  const format = outputFormatOf(body.response_format);
  const texts: SimulatedText[] = [];
  for (let i = 0; i < n; i++) {
    const text = simulateText({ model: body.model, prompt, maxTokens, stop, variant: i, withReasoning });
    const json = structuredContent(format, `${prompt}\n${i}`, text.content);
    texts.push(json === undefined ? text : withContent(text, json));
  }
  const topLogprobs = typeof body.top_logprobs === 'number' ? body.top_logprobs : 0;
  const logprobsOf = (text: SimulatedText) => (body.logprobs === true && !hasCalls ? { content: tokenLogprobs(text.contentPieces, topLogprobs), refusal: null } : null);
  const callTokens = hasCalls ? countTokens(JSON.stringify(toolCalls.map((c) => c.function))) : 0;
  const completionTokens = texts.reduce((sum, t) => sum + (hasCalls ? callTokens : t.contentTokens) + t.reasoningTokens, 0);
  const reasoningTokens = texts.reduce((sum, t) => sum + t.reasoningTokens, 0);
  const cachedTokens = req.promptCache.cachedPrefixTokens(body.messages.map((m) => `${m.role}\n${messageText(m)}`).join('\n'), promptTokens);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    // OpenAI reports the details on every answer; a repeated long prefix comes back cached.
    prompt_tokens_details: { cached_tokens: cachedTokens },
    ...(withReasoning ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
  };
  const id = `chatcmpl-${stableId(options.vendor, JSON.stringify(body))}`;
  const created = Math.floor(Date.now() / 1000);

  if (!body.stream) {
    const completion: OpenAIChatCompletion = {
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      choices: texts.map((text, index) => ({
        index,
        message: {
          role: 'assistant',
          content: hasCalls ? null : text.content,
          ...(withReasoning ? { reasoning_content: text.reasoning } : {}),
          ...(hasCalls ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: hasCalls ? 'tool_calls' : text.finishReason,
        logprobs: logprobsOf(text),
      })),
      usage,
    };
    res.json(200, completion);
    return;
  }

  const includeUsage = options.alwaysStreamUsage || body.stream_options?.include_usage === true;
  // OpenAI marks every chunk "usage": null once usage is asked for (openai.md §1 stream_options).
  const nullUsage = includeUsage && !options.alwaysStreamUsage ? { usage: null } : {};
  const chunk = (choices: OpenAIChatChunk['choices'], extra: Partial<OpenAIChatChunk> = {}): string =>
    formatSse({ data: { id, object: 'chat.completion.chunk', created, model: body.model, choices, ...nullUsage, ...extra } });
  const frames: string[] = [];
  texts.forEach((text, index) => {
    frames.push(chunk([{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    for (const piece of text.reasoningPieces) frames.push(chunk([{ index, delta: { reasoning_content: piece }, finish_reason: null }]));
    if (hasCalls) {
      // Each call in two chunks, as OpenAI streams them: id and name first, then the arguments.
      toolCalls.forEach((call, callIndex) => {
        frames.push(chunk([{ index, delta: { tool_calls: [{ index: callIndex, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, finish_reason: null }]));
        frames.push(chunk([{ index, delta: { tool_calls: [{ index: callIndex, function: { arguments: call.function.arguments } }] }, finish_reason: null }]));
      });
    } else {
      const logprobs = logprobsOf(text)?.content;
      text.contentPieces.forEach((piece, at) => {
        frames.push(chunk([{ index, delta: { content: piece }, finish_reason: null, ...(logprobs ? { logprobs: { content: [logprobs[at]!], refusal: null } } : {}) }]));
      });
    }
    const isLast = index === texts.length - 1;
    const finish = hasCalls ? 'tool_calls' : text.finishReason;
    // Zhipu-style vendors put usage on the final choice chunk; OpenAI sends a separate usage chunk.
    frames.push(chunk([{ index, delta: {}, finish_reason: finish }], options.alwaysStreamUsage && isLast ? { usage } : {}));
  });
  if (includeUsage && !options.alwaysStreamUsage) frames.push(chunk([], { usage }));
  frames.push(formatSse({ data: '[DONE]' }));
  await res.sse(frames);
}

function messageText(message: OpenAIChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

function lastUserText(messages: OpenAIChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') return messageText(messages[i]!);
  }
  return messageText(messages[messages.length - 1]!);
}

/** The results of the tools called in the previous assistant turn, when they end the conversation. */
function trailingToolResults(messages: readonly OpenAIChatMessage[]): string[] {
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(messageText(messages[i]!));
  return results;
}

/** What OpenAI answers for malformed tools: a 400 naming the tool (the gateway checks only family A's). */
function toolsProblem(tools: unknown, hostedToolTypes: readonly string[]): string | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) return "Invalid type for 'tools': expected an array.";
  const isValid = (t: { type?: unknown; function?: { name?: unknown } } | null) =>
    !!t && (t.type === 'function' ? typeof t.function?.name === 'string' : typeof t.type === 'string' && hostedToolTypes.includes(t.type));
  const at = tools.findIndex((t) => !isValid(t));
  return at >= 0 ? `Invalid 'tools[${at}]': expected a function tool with a function.name.` : undefined;
}

function toolChoiceOf(choice: OpenAIChatRequest['tool_choice']): SimToolChoice {
  if (typeof choice === 'object' && choice !== null) return { mode: 'named', names: [choice.function.name] };
  return choice === 'none' || choice === 'required' ? { mode: choice } : { mode: 'auto' };
}

/** Tool calls per tool_choice and parallel_tool_calls, arguments sampled from each tool's schema (tool-calls.ts). */
function pickToolCalls(body: OpenAIChatRequest, prompt: string, hasToolResults: boolean): OpenAIChatToolCall[] {
  const calls = decideToolCalls({
    tools: (body.tools ?? []).filter((t) => t.type === 'function').map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters })),
    choice: toolChoiceOf(body.tool_choice),
    isParallel: body.parallel_tool_calls === true,
    prompt,
    hasToolResults,
  });
  return calls.map((call) => ({ id: `call_${call.id}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }));
}

function outputFormatOf(format: OpenAIChatRequest['response_format']): SimOutputFormat {
  if (format?.type === 'json_object') return { kind: 'json_object' };
  if (format?.type === 'json_schema') return { kind: 'json_schema', schema: (format.json_schema as { schema?: unknown } | undefined)?.schema };
  return undefined;
}

/** The reply with its content replaced (structured output), tokens recounted. */
function withContent(text: SimulatedText, content: string): SimulatedText {
  const contentPieces = tokenPieces(content);
  return { ...text, content, contentPieces, contentTokens: contentPieces.length, finishReason: 'stop' };
}
