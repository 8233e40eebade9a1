import type { OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import type { AnthropicCacheControl, AnthropicContentBlockParam, AnthropicMessagesRequest } from './wire.js';

/** Anthropic refuses a request with more than 4 `cache_control` blocks (anthropic.md "Prompt caching"). */
export const MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL: AnthropicCacheControl = { type: 'ephemeral' };

/**
 * Anthropic caches no prefix shorter than 1024 tokens (more on some models), and a mark on a shorter
 * one does nothing; at 2 or more characters a token, a prompt under this many characters cannot be
 * cached, so short requests go out as they always did.
 */
const MIN_CACHEABLE_CHARS = 2048;

/** User turns marked from the end: the newest one, and the one before it so the previous turn's entry is read even past Anthropic's 20-block lookback. */
const MARKED_USER_TURNS = 2;

/**
 * Prompt-cache breakpoints on a request translated from another protocol (issue 33), where Claude
 * Code puts them: the last tool, the end of the system prompt and the last user turns (a tool
 * result is a user turn). Anthropic caches nothing unmarked, so without these a Codex or Gemini CLI
 * session on Claude resends its whole prefix at full price every turn. Never more than 4; a prefix
 * below the model's minimum is simply not cached upstream (no error). Mutates `body` in place.
 */
export function placeCacheBreakpoints(body: AnthropicMessagesRequest): void {
  if (!reachesCacheableLength(body)) return;
  let left = MAX_CACHE_BREAKPOINTS;
  const lastTool = body.tools?.[body.tools.length - 1];
  if (lastTool) {
    lastTool.cache_control = EPHEMERAL;
    left--;
  }
  if (typeof body.system === 'string' && body.system !== '') {
    body.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
    left--;
  }
  let userTurns = 0;
  for (let i = body.messages.length - 1; i >= 0 && left > 0 && userTurns < MARKED_USER_TURNS; i--) {
    const turn = body.messages[i]!;
    if (turn.role !== 'user') continue;
    userTurns++;
    const blocks: AnthropicContentBlockParam[] = typeof turn.content === 'string' ? [{ type: 'text', text: turn.content }] : turn.content;
    const target = lastMarkable(blocks);
    if (!target) continue;
    turn.content = blocks;
    (target as { cache_control?: AnthropicCacheControl }).cache_control = EPHEMERAL;
    left--;
  }
}

/** Whether tools, system and messages reach MIN_CACHEABLE_CHARS; stops counting once they do. */
function reachesCacheableLength(body: AnthropicMessagesRequest): boolean {
  let chars = typeof body.system === 'string' ? body.system.length : 0;
  for (const tool of body.tools ?? []) {
    if (chars >= MIN_CACHEABLE_CHARS) return true;
    chars += JSON.stringify(tool).length;
  }
  for (const turn of body.messages) {
    if (chars >= MIN_CACHEABLE_CHARS) return true;
    if (typeof turn.content === 'string') chars += turn.content.length;
    else for (const block of turn.content) chars += block.type === 'text' ? block.text.length : JSON.stringify(block).length;
  }
  return chars >= MIN_CACHEABLE_CHARS;
}

/** The last block that may carry `cache_control`: not thinking, and not empty text (Anthropic refuses a mark there). */
function lastMarkable(blocks: AnthropicContentBlockParam[]): AnthropicContentBlockParam | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    if (block.type === 'text' && block.text === '') continue;
    return block;
  }
  return undefined;
}

/** Whether the client placed cache marks of its own (some OpenAI-shaped clients put `cache_control` on content parts or tools): then it decides, not us. */
export function clientMarksCache(req: OpenAIChatRequest): boolean {
  const marked = (value: unknown): boolean => !!value && typeof value === 'object' && 'cache_control' in value;
  if (req.tools?.some(marked)) return true;
  return req.messages.some((message) => marked(message) || (Array.isArray(message.content) && message.content.some(marked)));
}
