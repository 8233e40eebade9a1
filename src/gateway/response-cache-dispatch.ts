import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import type { ResponseCacheCodec } from '../contracts/response-cache.js';
import type { Usage } from '../contracts/usage.js';
import type { PairFamily } from '../contracts/translator.js';
import { cacheDirectivesOf, type CacheDirectives } from '../cache/cache-control.js';
import { cacheKeyOf } from '../cache/cache-key.js';
import type { CachePolicy } from '../cache/cache-policy.js';
import type { CacheEntry } from '../cache/cache-store.js';
import { chargeOf } from '../usage/charge.js';
import { JsonChunks } from './json-chunks.js';
import { leadMiss } from './leading-miss.js';
import { findSimilarAnswer, indexQuestion, type SemanticProbe } from './semantic-cache-lookup.js';

/** A request the cache applies to: its entry id and scope, what its headers asked, and the entry found. */
export interface CacheSlot {
  id: string;
  scope: string;
  policy: CachePolicy;
  directives: CacheDirectives;
  hit: CacheEntry | undefined;
  /** Set when this request leads identical misses in flight: hands them what it stored. */
  settle?: ((entry: CacheEntry | undefined) => void) | undefined;
  /** Semantic mode: the missed question's embedding, indexed with the answer once stored. */
  semantic?: SemanticProbe | undefined;
}

export interface CacheRequest {
  family: PairFamily;
  model: string;
  request: FastifyRequest;
  reply: FastifyReply;
  codec: ResponseCacheCodec;
  /** What besides the body changes the answer (a protocol header such as `anthropic-beta`). */
  keyExtra?: string | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Looks the request up when the cache is on for its key and model (undefined, and no header,
 * when it is off: one policy check). Sets `x-cache` (HIT, MISS or BYPASS) and `age` on the
 * reply; a hit's usage and cost go on the request for the ledger. The store failing is a miss.
 */
export async function openCacheSlot(options: CacheRequest): Promise<CacheSlot | undefined> {
  const { request, reply, model } = options;
  const cache = request.server.gateway.responseCache;
  const policy = cache.policyFor(request.gw.key, model);
  if (!policy) return undefined;
  const directives = cacheDirectivesOf(request.headers);
  if (typeof directives === 'string') throw new GatewayError('GW_REQ_INVALID_PARAM', directives);
  const scope = directives.namespace ? `${policy.scope}/ns:${directives.namespace}` : policy.scope;
  const id = cacheKeyOf({ family: options.family, model, scope, body: request.body, extra: options.keyExtra });
  const slot: CacheSlot = { id, scope, policy, directives, hit: undefined };
  if (!directives.read) {
    cache.counts.bypasses++;
    reply.header('x-cache', 'BYPASS');
    return slot;
  }
  const entry = await cache.lookup(id, scope).catch(() => undefined);
  const ageS = entry ? ageOf(request, entry) : 0;
  if (entry && (directives.maxAgeS === undefined || ageS <= directives.maxAgeS)) {
    serveHit(options, slot, entry, ageS);
    return slot;
  }
  if (policy.mode === 'semantic') {
    const similar = await findSimilarAnswer(options, slot);
    const similarAgeS = similar ? ageOf(request, similar.entry) : 0;
    if (similar && (directives.maxAgeS === undefined || similarAgeS <= directives.maxAgeS)) {
      serveHit(options, slot, similar.entry, similarAgeS);
      reply.header('x-cache-match', `semantic; similarity=${similar.similarity.toFixed(4)}`);
      return slot;
    }
  }
  if (directives.write) {
    const joined = cache.misses.join(id);
    if (!joined.isLeader) {
      // An identical miss is in flight on this instance: its answer, once stored, is this one's.
      const shared = await joined.answer;
      if (shared) {
        cache.counts.coalesced++;
        serveHit(options, slot, shared, 0);
        return slot;
      }
    } else {
      // A leader that stores nothing (failed, cut, not cacheable) lets its waiters go upstream themselves.
      const lead = await leadMiss(cache, joined, id, scope, reply);
      if (lead.filled) {
        // Another instance sharing the store filled it meanwhile.
        cache.counts.coalesced++;
        serveHit(options, slot, lead.filled, ageOf(request, lead.filled));
        return slot;
      }
      slot.settle = lead.settle;
    }
  }
  cache.counts.misses++;
  reply.header('x-cache', 'MISS');
  return slot;
}

/** Seconds since the entry was stored (the `age` header). */
function ageOf(request: FastifyRequest, entry: CacheEntry): number {
  return Math.max(0, Math.floor((request.server.gateway.now() - entry.created_at) / 1000));
}

function serveHit(options: CacheRequest, slot: CacheSlot, entry: CacheEntry, ageS: number): void {
  const cache = options.request.server.gateway.responseCache;
  slot.hit = entry;
  cache.counts.hits++;
  cache.counts.bytesServed += entry.bytes;
  options.reply.header('x-cache', 'HIT').header('age', String(ageS));
  markHit(options.request, options.model, entry, slot.policy.hitCostFraction);
}

/** The ledger's view of a hit: the answer's tokens, a cost of the configured fraction, the rest saved. */
function markHit(request: FastifyRequest, model: string, entry: CacheEntry, hitCostFraction: number): void {
  const { prices } = request.server.gateway;
  const usage = JSON.parse(entry.usage) as Usage;
  request.gw.usage = usage;
  const full = chargeOf(prices, entry.channel, model, usage, request.gw.facts?.media);
  const costUsd = (full?.usd ?? 0) * hitCostFraction;
  request.gw.cacheHit = { costUsd, savedUsd: (full?.usd ?? 0) - costUsd, billedPrice: full?.billedPrice ?? null };
}

/** Stores a complete 200 answer unless the request said `no-store` or it ends in client tool calls the operator keeps out. */
export function storeAnswer(options: CacheRequest, slot: CacheSlot, answer: { text: string; parsed: unknown; stream?: string; streamVariant?: string }): void {
  const { request } = options;
  const cache = request.server.gateway.responseCache;
  if (!slot.directives.write || !request.gw.usage) return;
  if (!cache.cachesToolCalls && options.codec.hasClientToolCalls(answer.parsed)) return;
  const now = request.server.gateway.now();
  const usage = JSON.stringify(request.gw.usage);
  const ttlS = slot.directives.ttlS ?? slot.policy.ttlS;
  const entry: CacheEntry = {
    id: slot.id,
    scope: slot.scope,
    family: options.family,
    model: options.model,
    body: answer.text,
    stream: answer.stream ?? null,
    stream_variant: answer.stream === undefined ? null : (answer.streamVariant ?? ''),
    usage,
    channel: request.gw.channel ?? null,
    bytes: answer.text.length + (answer.stream?.length ?? 0) + usage.length,
    created_at: now,
    expires_at: now + ttlS * 1000,
  };
  cache.put(entry);
  indexQuestion(request, slot, entry);
  slot.settle?.(entry);
}

/**
 * A non-stream answer through the cache: a hit is the stored JSON text as it was sent; a miss is
 * answered by `answer` (the family's usual dispatch), whose body is sent as the text stored, so a
 * later hit is byte for byte the same.
 */
export async function answerJsonCached(options: CacheRequest, answer: () => Promise<unknown>): Promise<unknown> {
  const slot = await openCacheSlot(options);
  if (!slot) return answer();
  options.reply.type(JSON_TYPE);
  if (slot.hit) return slot.hit.body;
  const result = await answer();
  const isJsonText = typeof result === 'string' || result instanceof JsonChunks;
  const text = typeof result === 'string' ? result : result instanceof JsonChunks ? result.text() : JSON.stringify(result);
  storeAnswer(options, slot, { text, parsed: isJsonText ? JSON.parse(text) : result });
  return text;
}
