import { mkdtempSync } from 'node:fs';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { expect } from 'vitest';
import { TEST_KEY, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import type { FileConfig } from '../../../src/config/schema.js';
import type { FilePurpose, FileStore, StoredFile } from '../../../src/files/file-store.js';

/** Fast runner settings: the suite waits on polls, never on the default second-long tick. */
export const FAST_BATCHES = { tick_ms: 20, lease_ms: 2_000, retry_wait_max_ms: 50 } as const;

/**
 * Files seeded into and read from the gateway's own store as any key (the Files API's round trip
 * through the `openai` client is its own test, test/api/files; the lifecycle test here uploads
 * through it too).
 */
export interface SeededFiles {
  upload(keyId: string, text: string, purpose?: FilePurpose): Promise<StoredFile>;
  get(keyId: string, id: string): Promise<StoredFile | undefined>;
  text(keyId: string, id: string): Promise<string>;
}

function seededFiles(store: FileStore): SeededFiles {
  return {
    upload: (keyId, text, purpose = 'batch') =>
      store.put({ keyId, filename: 'input.jsonl', purpose, expiresAt: null, content: Readable.from([Buffer.from(text)]), maxBytes: 1 << 30 }),
    get: (keyId, id) => store.get(keyId, id),
    async text(keyId, id) {
      const content = await store.open(keyId, id);
      if (!content) throw new Error(`no file ${id} for key ${keyId}`);
      const chunks: Uint8Array[] = [];
      for await (const chunk of content) chunks.push(chunk);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

export interface BatchWorld {
  gateway: TestGateway;
  files: SeededFiles;
  client: OpenAI;
  keyId: string;
}

/** A gateway with fast batch settings and an `openai` client with the test key. */
export async function startBatchWorld(file: FileConfig = {}, options: { dataDir?: string } = {}): Promise<BatchWorld> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gateway-batches-'));
  const gateway = await startTestGateway({ dataDir, file: { ...file, batches: { ...FAST_BATCHES, ...file.batches } } });
  const lookup = await gateway.deps.keys.authenticate(TEST_KEY);
  if (lookup.status !== 'ok') throw new Error('test key not found');
  return { gateway, files: seededFiles(gateway.deps.files), client: new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 }), keyId: lookup.key.id };
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
