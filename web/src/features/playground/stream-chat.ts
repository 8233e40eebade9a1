import { csrfHeader, toApiError } from '../../lib/api';
import { readSse } from '../../lib/sse';

export interface ChatStreamResult {
  /** ms from sending to the first content. */
  firstTokenMs: number | undefined;
  totalMs: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
  finishReason: string | undefined;
}

interface ChatChunk {
  choices?: Array<{ delta?: { content?: string | null; reasoning_content?: string | null }; finish_reason?: string | null }>;
  usage?: ChatStreamResult['usage'] | null;
  error?: { message?: string };
}

/**
 * A streamed chat completion as one of the signed-in person's keys, chosen by id: the console
 * session is the credential and no secret is involved (issue 35). The gateway runs it through its
 * own /v1/chat/completions as that key, so it is exactly what a client would get. Calls onText per delta.
 */
export async function streamChat(options: {
  keyId: string;
  body: Record<string, unknown>;
  signal: AbortSignal;
  onText: (text: string) => void;
}): Promise<ChatStreamResult> {
  const started = performance.now();
  const response = await fetch('/console/api/playground/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...csrfHeader() },
    body: JSON.stringify({ key_id: options.keyId, ...options.body }),
    signal: options.signal,
    credentials: 'same-origin',
  });
  if (!response.ok || !response.body) throw await toApiError(response);
  const result: ChatStreamResult = { firstTokenMs: undefined, totalMs: 0, usage: undefined, finishReason: undefined };
  for await (const event of readSse(response.body, options.signal)) {
    if (event.data === '[DONE]') break;
    let chunk: ChatChunk;
    try {
      chunk = JSON.parse(event.data) as ChatChunk;
    } catch {
      continue;
    }
    if (chunk.error) throw new Error(chunk.error.message ?? 'The stream ended with an error');
    for (const choice of chunk.choices ?? []) {
      const text = choice.delta?.content ?? '';
      if (text) {
        result.firstTokenMs ??= performance.now() - started;
        options.onText(text);
      }
      if (choice.finish_reason) result.finishReason = choice.finish_reason;
    }
    if (chunk.usage) result.usage = chunk.usage;
  }
  result.totalMs = performance.now() - started;
  return result;
}
