/**
 * A simulator's prompt cache (issue 21): like OpenAI's and Gemini's automatic caching, a request
 * whose prompt starts with one seen before gets that prefix reported as cached tokens, from 1024
 * tokens on, in steps of 128 (openai.md "Prompt caching"). Anthropic's explicit caching reports a
 * write the first time a `cache_control` prefix is sent and a read after. One cache per running
 * simulator, bounded; prefixes are compared by hash at fixed character offsets (4 per token), so a
 * conversation that grows keeps hitting its earlier turns.
 */
const MIN_TOKENS = 1024;
const STEP_TOKENS = 128;
const CHARS_PER_TOKEN = 4;
const MAX_ENTRIES = 50_000;

export class PromptCache {
  private readonly seen = new Map<string, true>();

  /**
   * The tokens of the longest prefix of `text` seen before (0 when none), at most `tokens`; then
   * remembers this prompt's prefixes for the next request.
   */
  cachedPrefixTokens(text: string, tokens: number): number {
    let hit = 0;
    const keys: string[] = [];
    let hash = 0x811c9dc5;
    let at = 0;
    for (let boundary = MIN_TOKENS; boundary <= tokens; boundary += STEP_TOKENS) {
      const end = boundary * CHARS_PER_TOKEN;
      if (end > text.length) break;
      for (; at < end; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193) >>> 0;
      const key = `${boundary}:${hash}`;
      if (this.seen.has(key)) hit = boundary;
      keys.push(key);
    }
    for (const key of keys) this.remember(key);
    return Math.min(hit, tokens);
  }

  /** Anthropic-style: whether this exact prefix was written before; remembers it either way. */
  hasPrefix(text: string): boolean {
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
    const key = `exact:${text.length}:${hash}`;
    const found = this.seen.has(key);
    this.remember(key);
    return found;
  }

  private remember(key: string): void {
    this.seen.delete(key);
    this.seen.set(key, true);
    if (this.seen.size > MAX_ENTRIES) this.seen.delete(this.seen.keys().next().value!);
  }
}

/** Anthropic caches only prompts this long (the smallest model minimum on its caching page). */
export const ANTHROPIC_MIN_CACHE_TOKENS = MIN_TOKENS;
