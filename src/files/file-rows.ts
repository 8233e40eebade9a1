import { randomBytes } from 'node:crypto';
import type { Db } from '../db/connect.js';
import type { FileTable } from '../db/schema.js';
import type { FileListQuery, FilePurpose, StoredFile } from './file-store.js';

/** An upload left `uploading` this long was cut off (a stopped instance): the sweep removes it. */
export const ABANDONED_UPLOAD_MS = 6 * 3600_000;
/** Rows one sweep removes at most; the next sweep takes the rest. */
const SWEEP_ROWS = 500;

/** `file-` and 24 hex digits: unguessable, and the same on every store. */
export const newFileId = (): string => `file-${randomBytes(12).toString('hex')}`;

/**
 * The files' metadata in the database (0031), shared by both content stores: times are epoch ms
 * in the rows (a page's order needs more than seconds) and Unix seconds on `StoredFile`. A file
 * reads as present only when `ready`, its key's and unexpired.
 */
export class FileRows {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** The row of an upload that has begun: invisible until `finish`. */
  async begin(row: { id: string; keyId: string; filename: string; purpose: FilePurpose; createdMs: number }): Promise<void> {
    await this.db
      .insertInto('files')
      .values({ id: row.id, key_id: row.keyId, bytes: 0, created_at: row.createdMs, expires_at: null, filename: row.filename, purpose: row.purpose, status: 'uploading' })
      .execute();
  }

  /** The upload is whole: the file is visible from now on. */
  async finish(id: string, settled: { bytes: number; purpose: FilePurpose; expiresAt: number | null }): Promise<StoredFile> {
    const row = await this.db
      .updateTable('files')
      .set({ bytes: settled.bytes, purpose: settled.purpose, expires_at: settled.expiresAt === null ? null : settled.expiresAt * 1000, status: 'ready' })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toStoredFile(row);
  }

  async find(keyId: string, id: string): Promise<StoredFile | undefined> {
    const row = await this.live(keyId).where('id', '=', id).executeTakeFirst();
    return row && toStoredFile(row);
  }

  async list(keyId: string, query: FileListQuery): Promise<{ data: StoredFile[]; hasMore: boolean }> {
    let select = this.live(keyId);
    if (query.purpose !== undefined) select = select.where('purpose', '=', query.purpose);
    if (query.after !== undefined) {
      const anchor = await this.db.selectFrom('files').select(['created_at', 'id']).where('id', '=', query.after).where('key_id', '=', keyId).executeTakeFirst();
      // A cursor that is gone (deleted, swept) or never was this key's: nothing comes after it.
      if (!anchor) return { data: [], hasMore: false };
      const past = query.order === 'asc' ? '>' : '<';
      select = select.where((eb) => eb.or([eb('created_at', past, anchor.created_at), eb.and([eb('created_at', '=', anchor.created_at), eb('id', past, anchor.id)])]));
    }
    const rows = await select.orderBy('created_at', query.order).orderBy('id', query.order).limit(query.limit + 1).execute();
    return { data: rows.slice(0, query.limit).map(toStoredFile), hasMore: rows.length > query.limit };
  }

  /** Removes a live file's row; true when there was one. Its content is the caller's to remove. */
  async remove(keyId: string, id: string): Promise<boolean> {
    const nowMs = this.now();
    const result = await this.db
      .deleteFrom('files')
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .where('status', '=', 'ready')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowMs)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Removes a row whatever its state (a failed upload's). */
  async drop(id: string): Promise<void> {
    await this.db.deleteFrom('files').where('id', '=', id).execute();
  }

  /** Takes the rows of expired files and abandoned uploads out, and answers their ids (their content goes next). */
  async takeDead(): Promise<string[]> {
    const nowMs = this.now();
    const dead = await this.db
      .selectFrom('files')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'ready'), eb('expires_at', 'is not', null), eb('expires_at', '<=', nowMs)]),
          eb.and([eb('status', '=', 'uploading'), eb('created_at', '<', nowMs - ABANDONED_UPLOAD_MS)]),
        ]),
      )
      .limit(SWEEP_ROWS)
      .execute();
    const ids = dead.map((row) => row.id);
    if (ids.length > 0) await this.db.deleteFrom('files').where('id', 'in', ids).execute();
    return ids;
  }

  private live(keyId: string) {
    const nowMs = this.now();
    return this.db
      .selectFrom('files')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('status', '=', 'ready')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowMs)]));
  }
}

function toStoredFile(row: FileTable): StoredFile {
  return {
    id: row.id,
    keyId: row.key_id,
    bytes: Number(row.bytes),
    createdAt: Math.floor(Number(row.created_at) / 1000),
    expiresAt: row.expires_at === null ? null : Math.floor(Number(row.expires_at) / 1000),
    filename: row.filename,
    purpose: row.purpose as FilePurpose,
  };
}
