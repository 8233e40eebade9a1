import type { FileStore } from '../files/file-store.js';
import type { BatchRepo, BatchLineRow } from './batch-repo.js';
import type { BatchRow, LineState, OutputLine } from './batch.js';

const PAGE = 500;
/** The output files of a batch are as large as its answers; the store's own limit is OpenAI's 512 MB. */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** What an unfinished line of a cancelled or expired batch reads in the error file. */
export type UnfinishedCode = 'batch_cancelled' | 'batch_expired';

/**
 * Writes the batch's output file (lines answered 2xx) and error file (every other line, those that
 * never ran included, as `unfinished`), each line once, by line number; a file with no lines is
 * not written (its id stays null). Both are `batch_output` files of the batch's key.
 */
export async function writeOutputFiles(files: FileStore, repo: BatchRepo, batch: BatchRow, unfinished: UnfinishedCode): Promise<{ outputFileId: string | null; errorFileId: string | null }> {
  const expiresAt = batch.output_expires_after === null ? null : Math.floor(Number(batch.created_at) / 1000) + Number(batch.output_expires_after);
  const write = async (states: readonly LineState[], name: string): Promise<string | null> => {
    if (!(await repo.hasLinesIn(batch.id, states))) return null;
    const stored = await files.put({
      keyId: batch.key_id,
      filename: `${batch.id}_${name}.jsonl`,
      purpose: 'batch_output',
      expiresAt,
      content: outputLines(repo, batch.id, states, unfinished),
      maxBytes: MAX_OUTPUT_BYTES,
    });
    return stored.id;
  };
  return { outputFileId: await write(['done'], 'output'), errorFileId: await write(['failed', 'cancelled'], 'error') };
}

async function* outputLines(repo: BatchRepo, batchId: string, states: readonly LineState[], unfinished: UnfinishedCode): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  let after = 0;
  for (;;) {
    const page = await repo.linesIn(batchId, states, after, PAGE);
    if (page.length === 0) return;
    yield encoder.encode(page.map((line) => JSON.stringify(outputLineOf(line, unfinished)) + '\n').join(''));
    after = page.at(-1)!.line;
  }
}

function outputLineOf(line: BatchLineRow, unfinished: UnfinishedCode): OutputLine {
  if (line.outcome) return JSON.parse(line.outcome) as OutputLine;
  const message = unfinished === 'batch_expired' ? 'This request could not be executed before the completion window expired.' : 'This request was not executed: the batch was cancelled.';
  return { id: line.request_id, custom_id: line.custom_id, response: null, error: { code: unfinished, message } };
}
