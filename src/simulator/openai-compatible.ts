import { formatSse } from '../gateway/sse/write.js';
import type { OpenAIChatChunk, OpenAIChatCompletion, OpenAIChatMessage, OpenAIChatRequest, OpenAIChatToolCall } from '../protocols/openai-chat/types.js';
import type { SimErrorBody, SimHandler, SimRequest, SimResponse, SimulatorSpec } from './server.js';
import { countTokens, simulateText, stableId, type SimulatedText } from './text.js';

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
  const thinkingOff = options.hasThinkingSwitch && (body.thinking as { type?: string } | undefined)?.type === 'disabled';
  const withReasoning = options.isReasoningModel(body.model) && !thinkingOff;
  const prompt = lastUserText(body.messages);
  const promptTokens = body.messages.reduce((sum, m) => sum + 3 + countTokens(messageText(m)), 3);
  const n = body.n ?? 1;
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const toolCall = pickToolCall(body, prompt);
  const texts: SimulatedText[] = [];
  for (let i = 0; i < n; i++) {
    texts.push(simulateText({ model: body.model, prompt, maxTokens, stop, variant: i, withReasoning }));
  }
  if (body.response_format?.type === 'json_object') {
    for (const text of texts) text.content = JSON.stringify({ reply: text.content });
  }
  const completionTokens = texts.reduce((sum, t) => sum + t.contentTokens + t.reasoningTokens, 0);
  const reasoningTokens = texts.reduce((sum, t) => sum + t.reasoningTokens, 0);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
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
          content: toolCall ? null : text.content,
          ...(withReasoning ? { reasoning_content: text.reasoning } : {}),
          ...(toolCall ? { tool_calls: [toolCall] } : {}),
        },
        finish_reason: toolCall ? 'tool_calls' : text.finishReason,
        logprobs: null,
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
    if (toolCall) {
      frames.push(chunk([{ index, delta: { tool_calls: [{ index: 0, ...toolCall }] }, finish_reason: null }]));
    } else {
      for (const piece of text.contentPieces) frames.push(chunk([{ index, delta: { content: piece }, finish_reason: null }]));
    }
    const isLast = index === texts.length - 1;
    const finish = toolCall ? 'tool_calls' : text.finishReason;
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

/** Calls a tool when told to (`required` or a named tool), or when the prompt names one. */
function pickToolCall(body: OpenAIChatRequest, prompt: string): OpenAIChatToolCall | undefined {
  const tools = body.tools ?? [];
  if (tools.length === 0 || body.tool_choice === 'none') return undefined;
  const named = typeof body.tool_choice === 'object' ? body.tool_choice.function.name : undefined;
  const tool = named
    ? tools.find((t) => t.function.name === named)
    : body.tool_choice === 'required'
      ? tools[0]
      : tools.find((t) => prompt.includes(t.function.name));
  if (!tool) return undefined;
  return {
    id: `call_${stableId(tool.function.name, prompt).slice(0, 16)}`,
    type: 'function',
    function: { name: tool.function.name, arguments: JSON.stringify({ query: prompt.slice(0, 60) }) },
  };
}
