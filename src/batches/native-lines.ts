import type { GatewayDeps } from '../gateway-deps.js';
import type { BatchEndpoint, BatchLine } from '../contracts/batch-line.js';
import { routeModel } from '../gateway/route-model.js';
import type { Channel } from '../gateway/channel.js';
import { billNativeLine } from './bill-native-line.js';
import type { BatchLineRow, BatchRepo } from './batch-repo.js';
import type { BatchRow } from './batch.js';
import { nativeBatchFor } from './native-batch.js';

const PAGE = 1_000;

/**
 * Sends the pending lines whose model routes first to a channel with a vendor batch API
 * (batches/native-batch.ts) as one upstream batch per channel, and stores the upstream id on
 * those lines (`running`, never claimed by the self-run loop). Lines of other channels stay pending.
 */
export async function submitNativeLines(deps: GatewayDeps, repo: BatchRepo, batch: BatchRow, signal: AbortSignal): Promise<void> {
  if (!deps.channels.some((channel) => nativeBatchFor(channel))) return;
  const groups = new Map<Channel, BatchLineRow[]>();
  let after = 0;
  for (;;) {
    const page = await repo.linesIn(batch.id, ['pending'], after, PAGE);
    if (page.length === 0) break;
    for (const line of page) {
      const channel = routeModel(deps.channels, line.model)[0];
      if (channel && nativeBatchFor(channel)) (groups.get(channel) ?? groups.set(channel, []).get(channel)!).push(line);
    }
    after = page.at(-1)!.line;
  }
  for (const [channel, lines] of groups) {
    const executor = nativeBatchFor(channel)!;
    const asLines: BatchLine[] = lines.map((line) => ({ customId: line.custom_id, line: line.line, model: line.model, body: JSON.parse(line.body) as Record<string, unknown> }));
    const { upstreamId } = await executor.submit(channel, batch.endpoint as BatchEndpoint, asLines, signal);
    await repo.markNative(batch.id, lines.map((line) => line.line), channel.name, upstreamId);
  }
}

/**
 * Polls each upstream batch of this batch's lines still running; an ended one's results end its
 * lines (billed at the batch price), a line it left out ends as an error. True when none is left running.
 */
export async function pollNativeLines(deps: GatewayDeps, repo: BatchRepo, batch: BatchRow, signal: AbortSignal): Promise<boolean> {
  const running = await repo.nativeRunning(batch.id);
  for (const { channel: name, upstream_id: upstreamId } of running) {
    const channel = deps.channelControl.find(name);
    const executor = channel && nativeBatchFor(channel);
    if (!channel || !executor) continue;
    if ((await executor.poll(channel, upstreamId, signal)).state !== 'ended') continue;
    const lines = new Map((await repo.linesOfUpstream(batch.id, upstreamId)).map((line) => [line.custom_id, line]));
    for await (const result of executor.results(channel, upstreamId, batch.endpoint as BatchEndpoint, signal)) {
      const line = lines.get(result.customId);
      if (!line) continue;
      lines.delete(result.customId);
      if ('error' in result) {
        await repo.finishLine(batch.id, line.line, 'failed', { id: line.request_id, custom_id: line.custom_id, response: null, error: result.error }, undefined);
        continue;
      }
      const status = result.response.statusCode;
      const report = billNativeLine(deps, batch, line, name, status, result.usage);
      const outcome = { id: line.request_id, custom_id: line.custom_id, response: { status_code: status, request_id: line.request_id, body: result.response.body }, error: null };
      await repo.finishLine(batch.id, line.line, status < 300 ? 'done' : 'failed', outcome, report);
    }
    for (const line of lines.values()) {
      await repo.finishLine(batch.id, line.line, 'failed', { id: line.request_id, custom_id: line.custom_id, response: null, error: { code: 'missing_result', message: 'The vendor batch ended without a result for this request.' } }, undefined);
    }
  }
  return (await repo.nativeRunning(batch.id)).length === 0;
}

/** A cancelled or expired batch cancels its vendor batches still running (best effort: their lines end in the error file). */
export async function cancelNativeLines(deps: GatewayDeps, repo: BatchRepo, batch: BatchRow, signal: AbortSignal): Promise<void> {
  for (const { channel: name, upstream_id: upstreamId } of await repo.nativeRunning(batch.id)) {
    const channel = deps.channelControl.find(name);
    const executor = channel && nativeBatchFor(channel);
    if (channel && executor) await executor.cancel(channel, upstreamId, signal).catch(() => undefined);
  }
}
