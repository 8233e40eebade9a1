import { open, mkdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../db/connect.js';
import { FileRows } from './file-rows.js';
import type { FileListQuery, FileStore, NewFile, StoredFile } from './file-store.js';
import { putFile, type ContentSink } from './put-file.js';

/** Uploaded files' content: `<dataDir>/files/<id>` (`<id>.part` while it arrives). */
export const filesDir = (dataDir: string): string => join(dataDir, 'files');

/**
 * The embedded default: metadata in the database, content as plain files in the data directory
 * (one instance reads them; with DATABASE_URL the shared db-file-store.ts serves instead).
 */
export class DiskFileStore implements FileStore {
  private readonly rows: FileRows;
  private readonly dir: string;

  constructor(
    db: Db,
    dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.rows = new FileRows(db, now);
    this.dir = filesDir(dataDir);
  }

  async put(file: NewFile): Promise<StoredFile> {
    await mkdir(this.dir, { recursive: true });
    return putFile(this.rows, file, this.now, (id) => this.sink(id));
  }

  get(keyId: string, id: string): Promise<StoredFile | undefined> {
    return this.rows.find(keyId, id);
  }

  list(keyId: string, query: FileListQuery): Promise<{ data: StoredFile[]; hasMore: boolean }> {
    return this.rows.list(keyId, query);
  }

  async open(keyId: string, id: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    if (!(await this.rows.find(keyId, id))) return undefined;
    // Opened before answering: a file deleted meanwhile reads as absent, and one deleted while
    // it is being read is still read whole (the open handle keeps it).
    const handle = await open(join(this.dir, id), 'r').catch(() => undefined);
    return handle?.createReadStream();
  }

  async delete(keyId: string, id: string): Promise<boolean> {
    if (!(await this.rows.remove(keyId, id))) return false;
    await rm(join(this.dir, id), { force: true });
    return true;
  }

  async sweep(): Promise<number> {
    const ids = await this.rows.takeDead();
    for (const id of ids) {
      await rm(join(this.dir, id), { force: true });
      await rm(join(this.dir, `${id}.part`), { force: true });
    }
    return ids.length;
  }

  private sink(id: string): ContentSink {
    const partial = join(this.dir, `${id}.part`);
    const final = join(this.dir, id);
    let handle: Promise<FileHandle> | undefined;
    const opened = (): Promise<FileHandle> => (handle ??= open(partial, 'w'));
    return {
      write: async (chunk) => {
        await (await opened()).write(chunk);
      },
      commit: async () => {
        await (await opened()).close();
        await rename(partial, final);
      },
      discard: async () => {
        await (await handle)?.close().catch(() => undefined);
        await rm(partial, { force: true });
        await rm(final, { force: true });
      },
    };
  }
}
