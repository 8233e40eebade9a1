import type { KeyStore } from '../../keys/key-store.js';
import { pageLimit } from '../paging.js';
import type { KeyViews } from './key-views.js';
import type { KeyListQuery } from './key-schemas.js';

/**
 * The keys list for /admin/api/keys and /console/api/keys (`owner`: the console's user). With
 * `limit`, `q`, `offset` or `include_revoked` it is one page with the matching total (issue 22),
 * each page's spend read for its keys only; with none of them, every key as before.
 */
export async function keyListAnswer(keys: KeyStore, views: KeyViews, query: KeyListQuery, owner?: string) {
  const paged = query.limit !== undefined || query.offset !== undefined || query.q !== undefined || query.include_revoked !== undefined;
  if (!paged) return { object: 'list' as const, data: await views.many(await keys.list(owner === undefined ? {} : { owner }), { withSpend: true }) };
  const limit = pageLimit(query.limit);
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  const { keys: page, total } = await keys.page({ owner, q: query.q, includeRevoked: query.include_revoked !== 'false', limit, offset });
  return {
    object: 'list' as const,
    data: await views.many(page, { withSpend: true }),
    total,
    next_offset: offset + page.length < total ? offset + page.length : null,
  };
}
