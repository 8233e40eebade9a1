import { ANTHROPIC_MIN_CACHE_TOKENS, type PromptCache } from '../../simulator/prompt-cache.js';
import { countTokens } from '../../simulator/text.js';

/** The usage fields Anthropic's prompt caching adds (anthropic.md "Usage fields"). */
export interface AnthropicCacheUsage {
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

type Marked = { text: string; ttl: string | undefined };

/** Text of a block or message content, and whether the block carries `cache_control`. */
function partsOf(value: unknown): Marked[] {
  if (typeof value === 'string') return [{ text: value, ttl: undefined }];
  if (!Array.isArray(value)) return [];
  return value.map((block: Record<string, unknown> | null) => {
    const control = block?.cache_control as { ttl?: unknown } | undefined;
    const text = typeof block?.text === 'string' ? block.text : JSON.stringify(block?.input ?? block?.content ?? block?.input_schema ?? '');
    return { text, ttl: control ? (control.ttl === '1h' ? '1h' : '5m') : undefined };
  });
}

/**
 * Anthropic's explicit caching, simulated (issue 21): the prompt in its cache order (tools, system,
 * messages) up to the last block marked `cache_control` is the cached prefix. Sent the first time
 * it is written (at the marker's TTL: 5 minutes or 1 hour), after that it is read. Shorter prefixes
 * than the minimum are not cached, as on the real API. Undefined when nothing is marked.
 */
export function anthropicCacheUsage(body: Record<string, unknown>, cache: PromptCache): AnthropicCacheUsage | undefined {
  const tools = Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>).map((tool) => partsOf([{ ...tool, text: JSON.stringify(tool) }])[0]!) : [];
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>).flatMap((m) => partsOf(m.content)) : [];
  const parts = [...tools, ...partsOf(body.system), ...messages];
  let last = -1;
  parts.forEach((part, i) => {
    if (part.ttl) last = i;
  });
  if (last < 0) return undefined;
  const prefix = parts.slice(0, last + 1).map((part) => part.text).join('\n');
  const tokens = countTokens(prefix);
  if (tokens < ANTHROPIC_MIN_CACHE_TOKENS) return { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } };
  const isRead = cache.hasPrefix(prefix);
  const isHour = parts[last]!.ttl === '1h';
  return {
    cache_creation_input_tokens: isRead ? 0 : tokens,
    cache_read_input_tokens: isRead ? tokens : 0,
    cache_creation: { ephemeral_5m_input_tokens: isRead || isHour ? 0 : tokens, ephemeral_1h_input_tokens: !isRead && isHour ? tokens : 0 },
  };
}
