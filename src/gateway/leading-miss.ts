import type { FastifyReply } from 'fastify';
import type { CacheEntry } from '../cache/cache-store.js';
import type { LeadingMiss } from '../cache/miss-coalescer.js';
import type { ResponseCache } from '../cache/response-cache.js';
import type { SharedLead } from '../cache/shared-fill.js';

/**
 * This instance's first miss of an entry id (miss-coalescer.ts): where instances share the store
 * it also joins the fill across them (shared-fill.ts). Returns the entry another instance stored
 * meanwhile (served as a hit, and to this instance's waiters), or undefined: go upstream, and
 * `settle` what was stored (or nothing), which hands it to the waiters here and lets go of the
 * shared lease once the write landed. A reply closed first settles nothing: the waiters go upstream.
 */
export async function leadMiss(cache: ResponseCache, joined: LeadingMiss, id: string, scope: string, reply: FastifyReply): Promise<{ settle: (entry: CacheEntry | undefined) => void; filled: CacheEntry | undefined }> {
  let lead: SharedLead | undefined;
  let isSettled = false;
  const settle = (entry: CacheEntry | undefined) => {
    if (isSettled) return;
    isSettled = true;
    joined.settle(entry);
    lead?.release(entry ? cache.landed(entry.id) : Promise.resolve());
  };
  reply.raw.once('close', () => settle(undefined));
  const shared = await cache.fills?.join(id, scope);
  if (!shared) return { settle, filled: undefined };
  if (!shared.isLeader) {
    if (shared.entry) settle(shared.entry);
    return { settle, filled: shared.entry };
  }
  lead = shared;
  // The client left while the lease was claimed: let go of it now.
  if (isSettled) lead.release(Promise.resolve());
  return { settle, filled: undefined };
}
