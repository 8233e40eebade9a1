import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { expect } from 'vitest';
import { TEST_KEY, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { TempDirFileStore } from '../../helpers/temp-dir-file-store.js';
import type { FileConfig } from '../../../src/config/schema.js';

/** Fast runner settings: the suite waits on polls, never on the default second-long tick. */
export const FAST_BATCHES = { tick_ms: 20, lease_ms: 2_000, retry_wait_max_ms: 50 } as const;

export interface BatchWorld {
  gateway: TestGateway;
  files: TempDirFileStore;
  client: OpenAI;
  keyId: string;
}

/** A gateway with a test-only file store (until the Files API's store is merged) and an `openai` client with the test key. */
export async function startBatchWorld(file: FileConfig = {}, options: { dataDir?: string } = {}): Promise<BatchWorld> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gateway-batches-'));
  const files = new TempDirFileStore(join(dataDir, 'test-files'));
  const gateway = await startTestGateway({ dataDir, files, file: { ...file, batches: { ...FAST_BATCHES, ...file.batches } } });
  const lookup = await gateway.deps.keys.authenticate(TEST_KEY);
  if (lookup.status !== 'ok') throw new Error('test key not found');
  return { gateway, files, client: new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 }), keyId: lookup.key.id };
}

/** A JSONL input file of chat lines, one per custom id. */
export function chatLines(ids: readonly string[], model = 'delta-4.1', extra: Record<string, unknown> = {}): string {
  return ids.map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: `say ${id}` }], max_tokens: 16, ...extra } })).join('\n') + '\n';
}

export async function waitForStatus(client: OpenAI, id: string, statuses: readonly string[], timeout = 15_000): Promise<OpenAI.Batches.Batch> {
  let batch: OpenAI.Batches.Batch | undefined;
  await expect.poll(async () => (batch = await client.batches.retrieve(id)).status, { timeout, interval: 25 }).toSatisfy((status: string) => statuses.includes(status));
  return batch!;
}

/** The lines of a batch's output or error file, by custom id. */
export async function outputLines(world: BatchWorld, fileId: string | null | undefined): Promise<Map<string, any>> {
  if (!fileId) return new Map();
  const text = await world.files.text(world.keyId, fileId);
  const lines = text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
  return new Map(lines.map((line) => [line.custom_id, line]));
}
