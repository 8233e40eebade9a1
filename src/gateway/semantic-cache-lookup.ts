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
  const match = semantic.index.nearest(bucket, vector, request.server.gateway.now(), semantic.threshold);
  if (!match) return undefined;
  const entry = await cache.lookup(match.entryId, slot.scope).catch(() => undefined);
  if (!entry) semantic.index.forget(bucket, match.entryId);
  return entry && { entry, similarity: match.similarity };
}

/** Indexes a stored answer's question (semantic mode), when its lookup embedded one. */
export function indexQuestion(request: FastifyRequest, slot: CacheSlot, entry: CacheEntry): void {
  const semantic = request.server.gateway.responseCache.semantic;
  if (semantic && slot.semantic) semantic.index.add(slot.semantic.bucket, entry.id, slot.semantic.vector, entry.expires_at);
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
