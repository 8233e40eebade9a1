import type { GatewayDeps } from '../gateway-deps.js';
import type { BatchEndpoint, BatchLine, BatchLineOutcome } from '../contracts/batch-line.js';
import { routeModel } from '../gateway/route-model.js';
import type { Channel } from '../gateway/channel.js';
import { billNativeLine } from './bill-native-line.js';
import type { BatchLineRow, BatchRepo } from './batch-repo.js';
import type { BatchRow } from './batch.js';
import { refusalOfLine } from './native-line-checks.js';
import { NO_UPSTREAM_BATCH, nativeBatchFor, type NativeBatchExecutor } from './native-batch.js';

const PAGE = 1_000;

/** The executor of `channel`'s vendor batch API for the batch's endpoint, or undefined: the gateway runs those lines itself. */
const executorOf = (deps: GatewayDeps, channel: Channel, batch: BatchRow): NativeBatchExecutor | undefined =>
  nativeBatchFor(channel, batch.endpoint as BatchEndpoint, { upstream: deps.upstream, now: deps.now });

/**
 * Sends the pending lines whose model routes first to a channel with a vendor batch API
 * (batches/native-batch.ts) as one upstream batch per channel (per channel and model where the
 * vendor takes one model a batch), and stores the upstream id on those lines (`running`, never
 * claimed by the self-run loop). Lines the vendor's translator refuses end at once, never sent.
 * Lines of other channels stay pending.
 */
export async function submitNativeLines(deps: GatewayDeps, repo: BatchRepo, batch: BatchRow, signal: AbortSignal): Promise<void> {
  if (!deps.channels.some((channel) => executorOf(deps, channel, batch))) return;
  const groups = new Map<string, { channel: Channel; executor: NativeBatchExecutor; lines: BatchLineRow[] }>();
  const key = await deps.keys.get(batch.key_id);
  const endpoint = batch.endpoint as BatchEndpoint;
  let after = 0;
  for (;;) {
    const page = await repo.linesIn(batch.id, ['pending'], after, PAGE);
    if (page.length === 0) break;
    for (const line of page) {
      const channel = routeModel(deps.channels, line.model)[0];
      const executor = channel && executorOf(deps, channel, batch);
      if (!channel || !executor) continue;
      const refusal = refusalOfLine(deps, key, endpoint, line.custom_id, JSON.parse(line.body));
      if (refusal) {
        await finishNativeLine(deps, repo, batch, line, channel.name, refusal);
        continue;
      }
      const group = executor.oneModelPerBatch ? `${channel.name}\u0000${line.model}` : channel.name;
      (groups.get(group) ?? groups.set(group, { channel, executor, lines: [] }).get(group)!).lines.push(line);
    }
    after = page.at(-1)!.line;
  }
  for (const { channel, executor, lines } of groups.values()) {
    const asLines: BatchLine[] = lines.map((line) => ({ customId: line.custom_id, line: line.line, model: line.model, body: JSON.parse(line.body) as Record<string, unknown> }));
    const { upstreamId, refused } = await executor.submit(channel, endpoint, asLines, signal);
    const byId = new Map(lines.map((line) => [line.custom_id, line]));
    for (const outcome of refused) {
      const line = byId.get(outcome.customId);
      if (!line) continue;
      byId.delete(outcome.customId);
      await finishNativeLine(deps, repo, batch, line, channel.name, outcome);
    }
    if (upstreamId !== NO_UPSTREAM_BATCH && byId.size > 0) await repo.markNative(batch.id, [...byId.values()].map((line) => line.line), channel.name, upstreamId);
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
    const executor = channel && executorOf(deps, channel, batch);
    if (!channel || !executor) continue;
    if ((await executor.poll(channel, upstreamId, signal)).state !== 'ended') continue;
    const lines = new Map((await repo.linesOfUpstream(batch.id, upstreamId)).map((line) => [line.custom_id, line]));
    const modelOf = (customId: string) => lines.get(customId)?.model;
    for await (const result of executor.results(channel, upstreamId, batch.endpoint as BatchEndpoint, signal, { modelOf })) {
      const line = lines.get(result.customId);
      if (!line) continue;
      lines.delete(result.customId);
      await finishNativeLine(deps, repo, batch, line, name, result);
    }
    for (const line of lines.values()) {
      await finishNativeLine(deps, repo, batch, line, name, { customId: line.custom_id, error: { code: 'missing_result', message: 'The vendor batch ended without a result for this request.' } });
    }
  }
  return (await repo.nativeRunning(batch.id)).length === 0;
}

/** One line's outcome from a vendor batch (or its refusal before one): an answer is billed at the batch price, an error is not. */
async function finishNativeLine(deps: GatewayDeps, repo: BatchRepo, batch: BatchRow, line: BatchLineRow, channel: string, result: BatchLineOutcome): Promise<void> {
  if ('error' in result) {
    await repo.finishLine(batch.id, line.line, 'failed', { id: line.request_id, custom_id: line.custom_id, response: null, error: result.error }, undefined);
    return;
  }
  const status = result.response.statusCode;
  const report = billNativeLine(deps, batch, line, channel, status, result.usage);
  const outcome = { id: line.request_id, custom_id: line.custom_id, response: { status_code: status, request_id: line.request_id, body: result.response.body }, error: null };
  await repo.finishLine(batch.id, line.line, status < 300 ? 'done' : 'failed', outcome, report);
}

/** A cancelled or expired batch cancels its vendor batches still running (best effort: their lines end in the error file). */
export async function cancelNativeLines(deps: GatewayDeps, repo: BatchRepo, batch: BatchRow, signal: AbortSignal): Promise<void> {
  for (const { channel: name, upstream_id: upstreamId } of await repo.nativeRunning(batch.id)) {
    const channel = deps.channelControl.find(name);
    const executor = channel && executorOf(deps, channel, batch);
    if (channel && executor) await executor.cancel(channel, upstreamId, signal).catch(() => undefined);
  }
}
