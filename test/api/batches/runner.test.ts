import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, createKey } from '../../helpers/admin.js';
import { chatLines, outputLines, startBatchWorld, waitForStatus, type BatchWorld } from './batch-world.js';

/** An OpenAI-compatible upstream that counts requests in flight and holds each until `release` (or its delay). */
interface CountingVendor {
  url: string;
  /** The custom id each chat request carried (its user message is `say <id>`), in arrival order. */
  seen: string[];
  inFlight: number;
  maxInFlight: number;
  hold: boolean;
  release(): void;
  close(): Promise<void>;
}

async function startCountingVendor(delayMs: number): Promise<CountingVendor> {
  let waiting: Array<() => void> = [];
  const vendor: CountingVendor = {
    url: '',
    seen: [],
    inFlight: 0,
    maxInFlight: 0,
    hold: false,
    release() {
      vendor.hold = false;
      for (const go of waiting) go();
      waiting = [];
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: Array<{ content: string }> };
      vendor.seen.push(body.messages[0]!.content.replace(/^say /, ''));
      vendor.inFlight += 1;
      vendor.maxInFlight = Math.max(vendor.maxInFlight, vendor.inFlight);
      await new Promise<void>((resolve) => (vendor.hold ? waiting.push(resolve) : setTimeout(resolve, delayMs)));
      vendor.inFlight -= 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: 'chatcmpl-fake', object: 'chat.completion', created: 1, model: 'up-model',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vendor.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return vendor;
}

const channelTo = (vendor: CountingVendor) => ({ prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } }, channels: [{ name: 'fake-openai', vendor: 'openai' as const, base_url: `${vendor.url}/v1`, api_key: 'upstream-key', models: { 'delta-4.1': 'up-model' } }] });
const ids = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
const sorted = (values: Iterable<string>) => [...values].sort();

describe('the batch runner: lines the gateway runs itself (issue 46)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  const world = async (vendor: CountingVendor, batches: Record<string, number>, dataDir?: string): Promise<BatchWorld> => {
    const started = await startBatchWorld({ ...channelTo(vendor), batches }, dataDir ? { dataDir } : {});
    return started;
  };
  const create = (w: BatchWorld, fileId: string) => w.client.batches.create({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });

  it('keeps at most lines_in_flight lines of a batch in flight, and sends each line once', async () => {
    const vendor = await startCountingVendor(25);
    const w = await world(vendor, { lines_in_flight: 3 });
    cleanup.push(() => vendor.close(), () => w.gateway.stop());
    const file = await w.files.upload(w.keyId, chatLines(ids(12)));
    const done = await waitForStatus(w.client, (await create(w, file.id)).id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 12, completed: 12, failed: 0 });
    expect(vendor.maxInFlight).toBeLessThanOrEqual(3);
    expect(sorted(vendor.seen)).toEqual(sorted(ids(12)));
  });

  it('makes lines over the key\'s rpm wait instead of failing', async () => {
    const vendor = await startCountingVendor(0);
    const w = await world(vendor, { lines_in_flight: 4 });
    cleanup.push(() => vendor.close(), () => w.gateway.stop());
    const { id: keyId, key } = await createKey(w.gateway, { name: 'slow', rpm: 2 });
    const client = new OpenAI({ apiKey: key, baseURL: `${w.gateway.url}/v1`, maxRetries: 0 });
    const file = await w.files.upload(keyId, chatLines(ids(5)));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await expect.poll(async () => (await client.batches.retrieve(batch.id)).request_counts?.completed).toBe(2);
    // Refused by the key's rpm again and again (retry_wait_max_ms is short here): still waiting, nothing failed.
    await expect.poll(async () => (await w.gateway.deps.db.selectFrom('usage_events').select('id').where('batch_id', '=', batch.id).where('status', '=', 429).execute()).length).toBeGreaterThan(3);
    expect(await client.batches.retrieve(batch.id)).toMatchObject({ status: 'in_progress', request_counts: { total: 5, completed: 2, failed: 0 } });
    expect(vendor.seen).toHaveLength(2);
    // The key's window opens (here: its limit is raised): the waiting lines run.
    expect((await admin(w.gateway, 'PATCH', `/keys/${keyId}`, { rpm: 1000 })).status).toBe(200);
    const done = await waitForStatus(client, batch.id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
    expect(sorted(vendor.seen)).toEqual(sorted(ids(5)));
  });

  it('cancel: no line starts after the answer; lines in flight finish; cancelled with partial output and the rest in the error file', async () => {
    const vendor = await startCountingVendor(0);
    vendor.hold = true;
    const w = await world(vendor, { lines_in_flight: 2 });
    cleanup.push(() => vendor.close(), () => w.gateway.stop());
    const file = await w.files.upload(w.keyId, chatLines(ids(6)));
    const batch = await create(w, file.id);
    await expect.poll(() => vendor.inFlight).toBe(2);
    const cancelling = await w.client.batches.cancel(batch.id);
    expect(cancelling.status).toBe('cancelling');
    expect(cancelling.cancelling_at).not.toBeNull();
    vendor.release();
    const done = await waitForStatus(w.client, batch.id, ['cancelled']);
    expect(vendor.seen).toHaveLength(2);
    expect(done.request_counts).toMatchObject({ total: 6, completed: 2 });
    expect(done.cancelled_at).not.toBeNull();
    const output = await outputLines(w, done.output_file_id);
    const errors = await outputLines(w, done.error_file_id);
    expect(sorted(output.keys())).toEqual(sorted(vendor.seen));
    expect(sorted([...output.keys(), ...errors.keys()])).toEqual(sorted(ids(6)));
    for (const line of errors.values()) expect(line).toMatchObject({ response: null, error: { code: 'batch_cancelled' } });
    // Cancelling again answers the batch as it is; a finished batch cannot be cancelled.
    expect((await w.client.batches.cancel(batch.id)).status).toBe('cancelled');
  });

  it('a line the key\'s budget refuses ends in the error file with its 429, unbilled; the batch still completes', async () => {
    const vendor = await startCountingVendor(0);
    vendor.hold = true;
    const w = await world(vendor, { lines_in_flight: 1 });
    cleanup.push(() => vendor.close(), () => w.gateway.stop());
    const { id: keyId, key } = await createKey(w.gateway, { name: 'budgeted', budget_usd: 10 });
    const client = new OpenAI({ apiKey: key, baseURL: `${w.gateway.url}/v1`, maxRetries: 0 });
    const file = await w.files.upload(keyId, chatLines(ids(4)));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await expect.poll(() => vendor.inFlight).toBe(1);
    expect((await admin(w.gateway, 'PATCH', `/keys/${keyId}`, { budget_usd: 0.000001 })).status).toBe(200);
    vendor.release();
    const done = await waitForStatus(client, batch.id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 4, completed: 1, failed: 3 });
    expect(vendor.seen).toHaveLength(1);
    const errors = await outputLines({ ...w, keyId }, done.error_file_id);
    expect(errors.size).toBe(3);
    for (const line of errors.values()) expect(line.response).toMatchObject({ status_code: 429, body: { error: { code: 'insufficient_quota' } } });
    await w.gateway.deps.usage.flush();
    const billed = await w.gateway.deps.db.selectFrom('usage_events').select(['cost_usd']).where('batch_id', '=', batch.id).where('cost_usd', '>', 0).execute();
    expect(billed).toHaveLength(1);
  });

  it('resumes after a restart on the same data: completes, and the upstream saw each custom_id exactly once', async () => {
    const vendor = await startCountingVendor(40);
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-batches-restart-'));
    const first = await world(vendor, { lines_in_flight: 1 }, dataDir);
    cleanup.push(() => vendor.close());
    const file = await first.files.upload(first.keyId, chatLines(ids(8)));
    const batch = await create(first, file.id);
    await expect.poll(async () => (await first.client.batches.retrieve(batch.id)).request_counts?.completed, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await first.gateway.stop({ keepData: true });
    const stoppedAt = vendor.seen.length;
    expect(stoppedAt).toBeLessThan(8);

    const second = await world(vendor, { lines_in_flight: 1 }, dataDir);
    cleanup.push(() => second.gateway.stop());
    const done = await waitForStatus(second.client, batch.id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 8, completed: 8, failed: 0 });
    expect(sorted(vendor.seen)).toEqual(sorted(ids(8)));
    expect(sorted((await outputLines(second, done.output_file_id)).keys())).toEqual(sorted(ids(8)));
  });

  it('expires a batch past its window: finished lines in the output, the rest batch_expired in the error file', async () => {
    const vendor = await startCountingVendor(0);
    vendor.hold = true;
    const w = await world(vendor, { lines_in_flight: 1, completion_window_s: 1 });
    cleanup.push(() => vendor.close(), () => w.gateway.stop());
    const file = await w.files.upload(w.keyId, chatLines(ids(4)));
    const batch = await create(w, file.id);
    expect(batch.expires_at! - batch.created_at).toBeLessThanOrEqual(1);
    await expect.poll(() => vendor.inFlight).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    vendor.release();
    const done = await waitForStatus(w.client, batch.id, ['expired', 'completed']);
    expect(done.status).toBe('expired');
    expect(done.expired_at).not.toBeNull();
    const output = await outputLines(w, done.output_file_id);
    const errors = await outputLines(w, done.error_file_id);
    expect(output.size).toBe(1);
    expect(sorted([...output.keys(), ...errors.keys()])).toEqual(sorted(ids(4)));
    for (const line of errors.values()) expect(line.error.code).toBe('batch_expired');
  });
});
