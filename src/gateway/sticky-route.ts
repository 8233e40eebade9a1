import type { IncomingHttpHeaders } from 'node:http';
import type { ConversationHint } from '../contracts/request-facts.js';
import type { Offering } from './route-model.js';

/**
 * Sticky routing for prompt caches (issue 20): agent traffic is mostly a cached prefix, and a turn
 * that lands on another channel (another account) pays for the whole prefix again. A request's
 * conversation is named by what its client says (below); among channels of the same priority the
 * conversation goes to the one that wins a weighted rendezvous hash of (conversation, channel).
 * No state is kept: every instance picks the same channel, weights still share conversations out,
 * and a channel that is disabled or whose circuit is open drops out of the candidates, so only its
 * own conversations move (to their next-best channel).
 */

/** Headers naming a conversation, in order of trust: Claude Code's, then Codex's and others'. */
const SESSION_HEADERS = ['x-claude-code-session-id', 'session-id', 'thread-id', 'x-session-id'] as const;

/** Enough of a conversation's start to tell conversations apart; more would only cost time. */
const PREFIX_CHARS = 2048;

/**
 * The conversation a request belongs to: a session header, the cache key its client names
 * (a prompt-cache key) or its end user (Claude Code's carries its session), else the key with the
 * start of the prompt (system text and first turn): the prefix a cache would hold. The body's
 * part comes from its family's facts (`hint`); a request without facts is named by its key alone.
 */
export function conversationOf(headers: IncomingHttpHeaders, hint: ConversationHint | undefined, keyId: string | undefined): string {
  for (const name of SESSION_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value) return `h:${value}`;
  }
  if (hint?.cacheKey) return `c:${keyId ?? ''}:${hint.cacheKey}`;
  if (hint?.userId) return `u:${keyId ?? ''}:${hint.userId}`;
  return `p:${keyId ?? ''}:${hint ? hint.promptStart(PREFIX_CHARS).join('\u0000') : ''}`;
}

/**
 * The offerings with each run of equal priority reordered by the conversation's weighted
 * rendezvous score (highest first); the order of priorities is kept.
 */
export function stickyOrder<T>(offerings: readonly Offering<T>[], conversation: string): Offering<T>[] {
  const seed = fnv1a(conversation, FNV_OFFSET);
  const scored = offerings.map((offering, index) => ({ offering, index, score: rendezvousScore(seed, offering.channel.name, offering.channel.weight) }));
  scored.sort((a, b) => a.offering.channel.priority - b.offering.channel.priority || b.score - a.score || a.index - b.index);
  return scored.map((entry) => entry.offering);
}

/** Weighted rendezvous hashing: weight / -ln(u) for a uniform u from the pair's hash. */
function rendezvousScore(seed: number, channel: string, weight: number): number {
  const unit = (fnv1a(channel, seed) + 0.5) / 2 ** 32;
  return weight / -Math.log(unit);
}

const FNV_OFFSET = 0x811c9dc5;

/** 32-bit FNV-1a of a string's UTF-16 code units, from a given state (chaining two strings). */
function fnv1a(text: string, state: number): number {
  let hash = state;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // A final mix: FNV's low bits spread poorly for short, similar inputs (channel names).
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}
