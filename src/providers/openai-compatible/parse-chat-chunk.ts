import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { OpenAIChatChunk } from '../../protocols/openai-chat/types.js';

/** Parses one chat stream event; an `{error}` event mid-stream becomes our upstream error. */
export function parseChatChunk(data: string): OpenAIChatChunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not JSON');
  }
  const record = chunk as Partial<OpenAIChatChunk> & { error?: unknown };
  if (record.error) throw upstreamStatusError(502, upstreamMessage(record));
  if (!Array.isArray(record.choices)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a chunk without choices');
  return record as OpenAIChatChunk;
}
