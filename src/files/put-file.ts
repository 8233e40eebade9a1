import { GatewayError } from '../errors.js';
import type { FileRows } from './file-rows.js';
import { newFileId } from './file-rows.js';
import type { NewFile, StoredFile } from './file-store.js';

/** Where one file's content goes as it arrives; nothing of it is visible until its row is finished. */
export interface ContentSink {
  write(chunk: Uint8Array): Promise<void>;
  /** The content is whole: keep it. */
  commit(): Promise<void>;
  /** Remove whatever was written (committed or not). */
  discard(): Promise<void>;
}

export const fileTooLarge = (maxBytes: number): GatewayError =>
  new GatewayError('GW_REQ_TOO_LARGE', `The file is larger than the limit of ${maxBytes} bytes`, { param: 'file' });

/**
 * One upload, the same on every store: a row marks it begun, the content streams into the sink a
 * chunk at a time (the sink awaits each, so a slow store slows the sender instead of filling
 * memory), and past `maxBytes` or on any failure the sink's content and the row are removed.
 */
export async function putFile(rows: FileRows, file: NewFile, now: () => number, openSink: (id: string) => ContentSink): Promise<StoredFile> {
  const id = newFileId();
  const createdMs = now();
  await rows.begin({ id, keyId: file.keyId, filename: file.filename, purpose: file.purpose, createdMs });
  const sink = openSink(id);
  try {
    let bytes = 0;
    for await (const chunk of file.content) {
      bytes += chunk.byteLength;
      if (bytes > file.maxBytes) throw fileTooLarge(file.maxBytes);
      await sink.write(chunk);
    }
    const settled = file.settle ? await file.settle({ bytes, createdAt: Math.floor(createdMs / 1000) }) : { purpose: file.purpose, expiresAt: file.expiresAt };
    await sink.commit();
    return await rows.finish(id, { bytes, purpose: settled.purpose, expiresAt: settled.expiresAt });
  } catch (error) {
    await sink.discard().catch(() => undefined);
    await rows.drop(id).catch(() => undefined);
    throw error;
  }
}
