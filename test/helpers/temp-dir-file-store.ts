import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GatewayError } from '../../src/errors.js';
import type { FileListQuery, FileStore, NewFile, StoredFile } from '../../src/files/file-store.js';

/**
 * TEST ONLY: a FileStore over a directory (one JSON file of facts and one of bytes per file), for
 * the batch tests until the Files API's own store is merged. Kept on disk, so a gateway started
 * again on the same directory sees the same files.
 */
export class TempDirFileStore implements FileStore {
  constructor(private readonly dir: string) {}

  async put(file: NewFile): Promise<StoredFile> {
    await mkdir(this.dir, { recursive: true });
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    for await (const chunk of file.content) {
      bytes += chunk.byteLength;
      if (bytes > file.maxBytes) throw new GatewayError('GW_REQ_TOO_LARGE', 'file too large');
      chunks.push(chunk);
    }
    const stored: StoredFile = { id: `file-${randomBytes(12).toString('hex')}`, keyId: file.keyId, bytes, createdAt: Math.floor(Date.now() / 1000), expiresAt: file.expiresAt, filename: file.filename, purpose: file.purpose };
    await writeFile(join(this.dir, `${stored.id}.bin`), Buffer.concat(chunks));
    await writeFile(join(this.dir, `${stored.id}.json`), JSON.stringify(stored));
    return stored;
  }

  /** Seeds a file as a client's upload would (tests). */
  upload(keyId: string, text: string, purpose: StoredFile['purpose'] = 'batch'): Promise<StoredFile> {
    return this.put({ keyId, filename: 'input.jsonl', purpose, expiresAt: null, content: (async function* () { yield new TextEncoder().encode(text); })(), maxBytes: 1 << 30 });
  }

  async get(keyId: string, id: string): Promise<StoredFile | undefined> {
    if (!/^file-[0-9a-f]+$/.test(id)) return undefined;
    try {
      const file = JSON.parse(await readFile(join(this.dir, `${id}.json`), 'utf8')) as StoredFile;
      return file.keyId === keyId ? file : undefined;
    } catch {
      return undefined;
    }
  }

  async list(keyId: string, query: FileListQuery): Promise<{ data: StoredFile[]; hasMore: boolean }> {
    const names = (await readdir(this.dir).catch(() => [] as string[])).filter((name) => name.endsWith('.json'));
    const all = (await Promise.all(names.map(async (name) => JSON.parse(await readFile(join(this.dir, name), 'utf8')) as StoredFile))).filter((file) => file.keyId === keyId && (!query.purpose || file.purpose === query.purpose));
    return { data: all.slice(0, query.limit), hasMore: all.length > query.limit };
  }

  async open(keyId: string, id: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    if (!(await this.get(keyId, id))) return undefined;
    return createReadStream(join(this.dir, `${id}.bin`), { highWaterMark: 256 });
  }

  /** The content as text (tests). */
  async text(keyId: string, id: string): Promise<string> {
    const content = await this.open(keyId, id);
    if (!content) throw new Error(`no file ${id}`);
    const chunks: Buffer[] = [];
    for await (const chunk of content) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  }

  async delete(keyId: string, id: string): Promise<boolean> {
    if (!(await this.get(keyId, id))) return false;
    await rm(join(this.dir, `${id}.json`));
    await rm(join(this.dir, `${id}.bin`));
    return true;
  }
}
