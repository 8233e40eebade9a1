import type { Db } from '../db/connect.js';
import { FileRows } from './file-rows.js';
import type { FileListQuery, FileStore, NewFile, StoredFile } from './file-store.js';
import { putFile, type ContentSink } from './put-file.js';

/** Content rows of about this size: few round trips, and one row is all a reader or writer holds. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * The store every instance sees (DATABASE_URL): metadata and content both in the database, the
 * content in `file_chunks` rows written as it arrives and read back one row at a time.
 */
export class DbFileStore implements FileStore {
  private readonly rows: FileRows;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    private readonly chunkBytes: number = CHUNK_BYTES,
  ) {
    this.rows = new FileRows(db, now);
  }

  put(file: NewFile): Promise<StoredFile> {
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
    return this.chunksOf(id);
  }

  async delete(keyId: string, id: string): Promise<boolean> {
    if (!(await this.rows.remove(keyId, id))) return false;
    await this.db.deleteFrom('file_chunks').where('file_id', '=', id).execute();
    return true;
  }

  async sweep(): Promise<number> {
    const ids = await this.rows.takeDead();
    if (ids.length > 0) await this.db.deleteFrom('file_chunks').where('file_id', 'in', ids).execute();
    return ids.length;
  }

  private async *chunksOf(id: string): AsyncGenerator<Uint8Array> {
    for (let seq = 0; ; seq++) {
      const row = await this.db.selectFrom('file_chunks').select('data').where('file_id', '=', id).where('seq', '=', seq).executeTakeFirst();
      if (!row) return;
      yield row.data;
    }
  }

  /** Rows of exactly `chunkBytes` (the last one shorter): at most one row and one arriving chunk are held. */
  private sink(id: string): ContentSink {
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    let seq = 0;
    const insert = (data: Uint8Array) => this.db.insertInto('file_chunks').values({ file_id: id, seq: seq++, data }).execute();
    return {
      write: async (chunk) => {
        pending.push(chunk);
        pendingBytes += chunk.byteLength;
        while (pendingBytes >= this.chunkBytes) {
          const whole = Buffer.concat(pending, pendingBytes);
          await insert(whole.subarray(0, this.chunkBytes));
          pending = [whole.subarray(this.chunkBytes)];
          pendingBytes = whole.length - this.chunkBytes;
        }
      },
      commit: async () => {
        if (pendingBytes > 0) await insert(Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
      },
      discard: async () => {
        pending = [];
        await this.db.deleteFrom('file_chunks').where('file_id', '=', id).execute();
      },
    };
  }
}
