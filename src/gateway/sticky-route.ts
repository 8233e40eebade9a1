import type { IncomingHttpHeaders } from 'node:http';
import type { ConversationHint } from '../contracts/request-facts.js';
import type { Offering } from './route-model.js';
import type { StickyLoad } from './sticky-load.js';

/**
 * Sticky routing for prompt caches (issue 20): agent traffic is mostly a cached prefix, and a turn
 * that lands on another channel (another account) pays for the whole prefix again. A request's
 * conversation is named by what its client says (below); among channels of the same priority the
 * conversation goes to the one that wins a weighted rendezvous hash of (conversation, channel).
 * No state is kept: every instance picks the same channel, weights still share conversations out,
 * and a channel that is disabled or whose circuit is open drops out of the candidates, so only its
 * own conversations move (to their next-best channel).
 *
 * Issue 33: without a name, only a request with history (an assistant turn or a tool result) is
 * a conversation worth keeping; a first turn spreads by weight like any request. And loads are
 * bounded: a new conversation whose channel holds clearly more than its weighted share of recent
 * traffic goes to its next channel (sticky-load.ts), so one hot prefix cannot take all the traffic.
 */

/** Headers naming a conversation, in order of trust: Claude Code's, then Codex's and others'. */
const SESSION_HEADERS = ['x-claude-code-session-id', 'session-id', 'thread-id', 'x-session-id'] as const;

/** Enough of a conversation's start (system text, then first user turn, each) to tell conversations apart. */
const PREFIX_CHARS = 2048;

/** A channel is overloaded above this multiple of its weighted share of its group's recent traffic… */
const LOAD_BOUND = 1.25;
/** …once the group has this much recent traffic: a handful of requests says nothing yet. */
const LOAD_MIN_TRAFFIC = 8;

/**
 * The conversation a request belongs to: a session header, the cache key its client names
 * (a prompt-cache key) or its end user (Claude Code's carries its session), else the key with the
 * start of the prompt (system text and first user turn) when the request has history: the prefix
 * a cache would hold. The body's part comes from its family's facts (`hint`). Undefined: no
 * conversation to keep, route by weight.
 */
export function conversationOf(headers: IncomingHttpHeaders, hint: ConversationHint | undefined, keyId: string | undefined): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value) return `h:${value}`;
  }
  if (hint?.cacheKey) return `c:${keyId ?? ''}:${hint.cacheKey}`;
  if (hint?.userId) return `u:${keyId ?? ''}:${hint.userId}`;
  if (!hint?.hasHistory()) return undefined;
  return `p:${keyId ?? ''}:${hint.promptStart(PREFIX_CHARS).join('\u0000')}`;
}

/**
 * The offerings with each run of equal priority reordered by the conversation's weighted
 * rendezvous score (highest first); the order of priorities is kept. With `load`, the first
 * group's lead is the conversation's channel on this instance if it has one, else the first
 * channel in score order that is not overloaded (`placeOf`); the conversation is placed there.
 */
export function stickyOrder<T>(offerings: readonly Offering<T>[], conversation: string, load?: StickyLoad): Offering<T>[] {
  const seed = fnv1a(conversation, FNV_OFFSET);
  const scored = offerings.map((offering, index) => ({ offering, index, score: rendezvousScore(seed, offering.channel.name, offering.channel.weight) }));
  scored.sort((a, b) => a.offering.channel.priority - b.offering.channel.priority || b.score - a.score || a.index - b.index);
  const ordered = scored.map((entry) => entry.offering);
  if (!load) return ordered;
  const lead = placeOf(ordered, conversation, load);
  if (lead > 0) ordered.unshift(ordered.splice(lead, 1)[0]!);
  load.place(conversation, ordered[0]!.channel.name);
  return ordered;
}

/** Where in the score order (first priority group) the conversation goes: its known channel, else the first one under its load bound. */
function placeOf<T>(ordered: readonly Offering<T>[], conversation: string, load: StickyLoad): number {
  const priority = ordered[0]!.channel.priority;
  let end = 1;
  while (end < ordered.length && ordered[end]!.channel.priority === priority) end++;
  if (end === 1) return 0;
  const home = load.homeOf(conversation);
  if (home !== undefined) {
    for (let i = 0; i < end; i++) if (ordered[i]!.channel.name === home) return i;
  }
  const at = load.time();
  let traffic = 0;
  let weights = 0;
  for (let i = 0; i < end; i++) {
    traffic += load.load(ordered[i]!.channel.name, at);
    weights += ordered[i]!.channel.weight;
  }
  if (traffic < LOAD_MIN_TRAFFIC || weights <= 0) return 0;
  for (let i = 0; i < end; i++) {
    const { name, weight } = ordered[i]!.channel;
    if (load.load(name, at) / traffic <= (LOAD_BOUND * weight) / weights) return i;
  }
  return 0;
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
