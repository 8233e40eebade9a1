import type { FastifyRequest } from 'fastify';
import { presentedSecret } from '../keys/presented-secret.js';
import { cacheKeyOf } from '../cache/cache-key.js';
import type { CacheEntry } from '../cache/cache-store.js';
import type { CacheRequest, CacheSlot } from './response-cache-dispatch.js';

/** The embedding of a missed question, kept on the slot so the answer can be indexed when stored. */
export interface SemanticProbe {
  bucket: string;
  vector: Float32Array;
}

/** Matches whose entry is gone (purged, evicted) are skipped; past this many the lookup is a miss. */
const MATCHES_TRIED = 3;

/**
 * Semantic mode after an exact miss (issue 32): the last user turn is embedded through the
 * gateway's own /v1/embeddings with the caller's key (its limits, model list and billing apply)
 * and matched among the questions stored with everything else equal (scope, family, model, system
 * prompt, tools, history, parameters). Fails open: an embedder or store error is a plain miss.
 */
export async function findSimilarAnswer(options: CacheRequest, slot: CacheSlot): Promise<{ entry: CacheEntry; similarity: number } | undefined> {
  const { request } = options;
  const cache = request.server.gateway.responseCache;
  const semantic = cache.semantic;
  const turn = semantic && options.codec.splitLastUserTurn?.(request.body);
  if (!semantic || !turn) return undefined;
  const context = options.keyExtra === undefined ? turn.context : [turn.context, options.keyExtra];
  const bucket = cacheKeyOf({ family: `semantic:${options.family}`, model: options.model, scope: slot.scope, body: context });
  const vector = await embedQuestion(request, semantic.embeddingModel, turn.text).catch(() => undefined);
  if (!vector) return undefined;
  slot.semantic = { bucket, vector };
  const matches = await semantic.questions.matches(bucket, vector, request.server.gateway.now(), semantic.threshold).catch(() => []);
  for (const match of matches.slice(0, MATCHES_TRIED)) {
    const entry = await cache.lookup(match.entryId, slot.scope).catch(() => undefined);
    if (entry) return { entry, similarity: match.similarity };
    void semantic.questions.forget(bucket, match.entryId).catch(() => undefined);
  }
  return undefined;
}

/**
 * Indexes a stored answer's question (semantic mode), when its lookup embedded one, once the entry
 * has landed: a question found before its entry would be forgotten as one whose entry is gone.
 * A failed write only costs a later miss.
 */
export function indexQuestion(request: FastifyRequest, slot: CacheSlot, entry: CacheEntry): void {
  const cache = request.server.gateway.responseCache;
  const probe = slot.semantic;
  const questions = cache.semantic?.questions;
  if (!questions || !probe) return;
  void cache
    .landed(entry.id)
    .then(() => questions.add(probe.bucket, entry.id, probe.vector, entry.created_at, entry.expires_at))
    .catch(() => undefined);
}

async function embedQuestion(request: FastifyRequest, model: string, text: string): Promise<Float32Array | undefined> {
  const secret = presentedSecret(request, request.routeOptions.config.errors?.key);
  if (!secret) return undefined;
  const response = await request.server.inject({
    method: 'POST',
    url: '/v1/embeddings',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ model, input: text }),
  });
  if (response.statusCode !== 200) return undefined;
  const values = (response.json() as { data?: Array<{ embedding?: unknown }> }).data?.[0]?.embedding;
  return Array.isArray(values) && values.every((v) => typeof v === 'number') ? Float32Array.from(values as number[]) : undefined;
}
