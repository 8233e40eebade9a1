import type { ResponseCacheCodec } from '../../contracts/response-cache.js';
import { splitAtLastUserTurn, typedTextPart } from '../../cache/last-user-turn.js';
import type { OutEvent, SseEvent } from '../../contracts/sse-event.js';
import type { Usage } from '../../contracts/usage.js';
import type { OpenAIChatChunk, OpenAIChatCompletion, OpenAIChatToolCall, OpenAIChatUsage } from '../../protocols/openai-chat/types.js';

type Choice = OpenAIChatCompletion['choices'][number];

/**
 * The chat families' answers in the response cache (issue 32): a chat.completion.chunk stream adds
 * up to the chat.completion it streams, and a chat.completion replays as chunks: role, reasoning,
 * content, tool calls, the finish reason, the usage chunk when asked for, `[DONE]`.
 */
export const chatCacheCodec: Required<ResponseCacheCodec> = {
  fromStream: chatCompletionOfStream,
  toStream: chatChunksOf,
  hasClientToolCalls: (body) => (body as OpenAIChatCompletion).choices?.some((c) => (c.message.tool_calls?.length ?? 0) > 0) ?? false,
  splitLastUserTurn: (body) => splitAtLastUserTurn(body, 'messages', (m) => m.role === 'user', 'content', typedTextPart('text')),
};

function chatCompletionOfStream(events: readonly SseEvent[], usage: Usage): OpenAIChatCompletion | undefined {
  let completion: OpenAIChatCompletion | undefined;
  let isDone = false;
  const calls = new Map<Choice, OpenAIChatToolCall[]>();
  for (const event of events) {
    if (event.data === '[DONE]') {
      isDone = true;
      continue;
    }
    const chunk = JSON.parse(event.data) as OpenAIChatChunk & { error?: unknown };
    if (chunk.error !== undefined) return undefined;
    completion ??= { id: chunk.id, object: 'chat.completion', created: chunk.created, model: chunk.model, choices: [], ...(chunk.system_fingerprint ? { system_fingerprint: chunk.system_fingerprint } : {}) };
    for (const part of chunk.choices ?? []) {
      let choice = completion.choices.find((c) => c.index === part.index);
      if (!choice) completion.choices.push((choice = { index: part.index, message: { role: 'assistant', content: null }, finish_reason: null }));
      const { delta } = part;
      if (typeof delta.content === 'string') choice.message.content = (choice.message.content ?? '') + delta.content;
      if (typeof delta.reasoning_content === 'string') choice.message.reasoning_content = (choice.message.reasoning_content ?? '') + delta.reasoning_content;
      for (const call of delta.tool_calls ?? []) addToolCallDelta(calls, choice, call);
      if (part.finish_reason) choice.finish_reason = part.finish_reason;
    }
    if (chunk.usage) completion.usage = chunk.usage;
  }
  if (!isDone || !completion) return undefined;
  completion.choices.sort((a, b) => a.index - b.index);
  for (const [choice, list] of calls) choice.message.tool_calls = list;
  completion.usage ??= chatUsageOf(usage);
  return completion;
}

function addToolCallDelta(calls: Map<Choice, OpenAIChatToolCall[]>, choice: Choice, delta: NonNullable<OpenAIChatChunk['choices'][number]['delta']['tool_calls']>[number]): void {
  let list = calls.get(choice);
  if (!list) calls.set(choice, (list = []));
  let call = list[delta.index];
  if (!call) list[delta.index] = call = { id: delta.id ?? '', type: 'function', function: { name: '', arguments: '' } };
  if (delta.id) call.id = delta.id;
  if (delta.function?.name) call.function.name += delta.function.name;
  if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
  if (delta.extra_content) call.extra_content = delta.extra_content;
}

function chatUsageOf(usage: Usage): OpenAIChatUsage {
  const out: OpenAIChatUsage = { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens };
  if (usage.cachedTokens) out.prompt_tokens_details = { cached_tokens: usage.cachedTokens };
  if (usage.reasoningTokens) out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return out;
}

function chatChunksOf(body: unknown, { includeUsage }: { includeUsage: boolean }): OutEvent[] {
  const completion = body as OpenAIChatCompletion;
  const head = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model, ...(completion.system_fingerprint ? { system_fingerprint: completion.system_fingerprint } : {}) };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): OutEvent => ({ data: { ...head, choices, ...extra } });
  const out: OutEvent[] = [chunk(completion.choices.map((c) => ({ index: c.index, delta: { role: 'assistant', content: '' }, finish_reason: null })))];
  for (const { index, message, finish_reason } of completion.choices) {
    if (message.reasoning_content) out.push(chunk([{ index, delta: { reasoning_content: message.reasoning_content }, finish_reason: null }]));
    if (message.content) out.push(chunk([{ index, delta: { content: message.content }, finish_reason: null }]));
    if (message.tool_calls?.length) {
      const tool_calls = message.tool_calls.map((call, i) => ({ index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments }, ...(call.extra_content ? { extra_content: call.extra_content } : {}) }));
      out.push(chunk([{ index, delta: { tool_calls }, finish_reason: null }]));
    }
    out.push(chunk([{ index, delta: {}, finish_reason }]));
  }
  if (includeUsage && completion.usage) out.push(chunk([], { usage: completion.usage }));
  out.push({ data: '[DONE]' });
  return out;
}
