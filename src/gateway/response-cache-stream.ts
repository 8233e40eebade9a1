import type { ResponseCacheCodec } from '../contracts/response-cache.js';
import type { PairFamily } from '../contracts/translator.js';
import type { CacheEntry } from '../cache/cache-store.js';
import { SseDecoder } from '../sse/parse.js';
import { formatEvents } from '../sse/relay.js';
import { openClientStream } from './client-stream.js';
import type { DispatchOptions, StreamOptions } from './dispatch-types.js';
import { storeAnswer, type CacheRequest, type CacheSlot } from './response-cache-dispatch.js';

/** Chat streams differ by whether the usage chunk was asked for; the other families' by nothing. */
const variantOf = (includeUsage: boolean): string => (includeUsage ? 'usage' : '');

/**
 * A streamed request answered from the cache: the stream a streamed miss sent, as it was sent,
 * when it was sent for the same variant; otherwise the stored answer replayed as the family's
 * events (reasoning, tool calls and usage included).
 */
export async function replayCachedStream<F extends PairFamily>(options: DispatchOptions<F> & StreamOptions, entry: CacheEntry, codec: Required<ResponseCacheCodec>): Promise<void> {
  const { request, reply } = options;
  const includeUsage = options.includeUsage === true;
  const text = entry.stream !== null && entry.stream_variant === variantOf(includeUsage) ? entry.stream : formatEvents(codec.toStream(JSON.parse(entry.body), { includeUsage }));
  const writer = openClientStream(request, reply);
  request.gw.firstTokenAt = Date.now();
  if (request.server.gateway.requestLog.settings.bodies) request.gw.responseText = text;
  const drained = writer.write(text);
  if (drained) await drained;
  writer.end();
}

/** Adds a finished stream up to the family's JSON answer and stores both; a stream that did not end complete is not stored. */
export function storeStream(options: CacheRequest, slot: CacheSlot, sent: string, includeUsage: boolean): void {
  if (!slot.directives.write || sent === '') return;
  try {
    const decoder = new SseDecoder();
    const events = [...decoder.feed(sent), ...decoder.end()];
    const usage = options.request.gw.usage;
    const body = usage && options.codec.fromStream?.(events, usage);
    if (body === undefined) return;
    storeAnswer(options, slot, { text: JSON.stringify(body), parsed: body, stream: sent, streamVariant: variantOf(includeUsage) });
  } catch {
    // An answer that cannot be read back is simply not cached.
  }
}
