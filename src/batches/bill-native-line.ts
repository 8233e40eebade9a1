import type { GatewayDeps } from '../gateway-deps.js';
import type { BatchLineUsage } from '../contracts/batch-line.js';
import type { BatchLineReport } from '../plugins/batch-line-mark.js';
import { chargeOf } from '../usage/charge.js';
import type { BatchLineRow } from './batch-repo.js';
import type { BatchRow } from './batch.js';

/**
 * Bills one line a vendor's batch answered (issue 46): its usage at the model's batch price
 * (`chargeOf(…, 'native')`, the same code that bills a self-run line at its batch price), as one
 * usage event of the batch's key carrying the batch id. The event's entry id is made from the
 * line's id, so a replayed journal or a second poll can never store it twice. Answers what the
 * batch's totals add.
 */
export function billNativeLine(deps: GatewayDeps, batch: BatchRow, line: BatchLineRow, channel: string, status: number, lineUsage: BatchLineUsage | undefined): BatchLineReport {
  const usage = lineUsage
    ? { promptTokens: lineUsage.inputTokens, completionTokens: lineUsage.outputTokens, reasoningTokens: 0, totalTokens: lineUsage.inputTokens + lineUsage.outputTokens, cachedTokens: lineUsage.cachedInputTokens ?? 0 }
    : undefined;
  const charge = chargeOf(deps.prices, channel, line.model, usage, undefined, 'native');
  const now = deps.now();
  deps.usage.record({
    entry_id: `batchline_${line.request_id}`,
    request_id: line.request_id,
    key_id: batch.key_id,
    model: line.model,
    channel,
    family: familyOf(batch.endpoint),
    status,
    outcome: status < 400 ? 'success' : 'error',
    prompt_tokens: usage?.promptTokens ?? 0,
    completion_tokens: usage?.completionTokens ?? 0,
    reasoning_tokens: 0,
    images: 0,
    video_seconds: 0,
    cost_usd: charge?.usd ?? 0,
    billed_price: charge?.billedPrice ?? null,
    cached_tokens: usage?.cachedTokens ?? 0,
    latency_ms: now - Number(batch.created_at),
    ttft_ms: null,
    created_at: now,
    batch_id: batch.id,
  });
  return { costUsd: charge?.usd ?? 0, channel, promptTokens: usage?.promptTokens ?? 0, cachedTokens: usage?.cachedTokens ?? 0, completionTokens: usage?.completionTokens ?? 0, reasoningTokens: 0 };
}

const familyOf = (endpoint: string): string => (endpoint === '/v1/embeddings' ? 'embeddings' : endpoint === '/v1/responses' ? 'responses' : 'chat-completions');
