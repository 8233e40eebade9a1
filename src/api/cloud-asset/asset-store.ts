import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { AssetTable } from '../../db/schema.js';
import type { AssetType, CreateAssetBody } from './schemas.js';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `asset-<yyyymmddhhmmss UTC>-<5 lowercase alphanumerics>`, the Ark id form. */
export function newAssetId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const suffix = [...randomBytes(5)].map((b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('');
  return `asset-${stamp}-${suffix}`;
}

const assetDir = (dataDir: string): string => join(dataDir, 'assets');

/** Local asset library: rows in `assets`, uploaded bytes under `<dataDir>/assets/`. */
export class AssetStore {
  constructor(
    private readonly db: Db,
    private readonly dataDir: string,
  ) {}

  /** Records an asset for a key; `id` is given when an upstream library created it. */
  async create(keyId: string, body: CreateAssetBody, now: number, id: string = newAssetId(now)): Promise<Selectable<AssetTable>> {
    let fileName: string | null = null;
    let size: number | null = null;
    if (body.Data !== undefined) {
      const bytes = Buffer.from(body.Data, 'base64');
      await mkdir(assetDir(this.dataDir), { recursive: true });
      fileName = id;
      size = bytes.length;
      await writeFile(join(assetDir(this.dataDir), fileName), bytes);
    }
    const row: Selectable<AssetTable> = {
      id,
      key_id: keyId,
      name: body.Name ?? null,
      asset_type: body.AssetType,
      status: 'Active',
      source_url: body.URL ?? null,
      file_name: fileName,
      mime_type: body.MimeType ?? null,
      size_bytes: size,
      created_at: now,
      deleted_at: null,
    };
    await this.db.insertInto('assets').values(row).execute();
    return row;
  }

  /** A key sees only its own live assets. */
  find(keyId: string, id: string): Promise<Selectable<AssetTable> | undefined> {
    return this.db.selectFrom('assets').selectAll().where('id', '=', id).where('key_id', '=', keyId).where('deleted_at', 'is', null).executeTakeFirst();
  }

  async list(keyId: string, page: number, size: number): Promise<{ rows: Selectable<AssetTable>[]; total: number }> {
    const base = this.db.selectFrom('assets').where('key_id', '=', keyId).where('deleted_at', 'is', null);
    const rows = await base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(size).offset((page - 1) * size).execute();
    const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { rows, total: Number(total) };
  }

  /** Returns false when there was nothing (live, of this key) to delete. */
  async delete(keyId: string, id: string, now: number): Promise<boolean> {
    const row = await this.find(keyId, id);
    if (!row) return false;
    const result = await this.db
      .updateTable('assets')
      .set({ deleted_at: now, status: 'Inactive' })
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (row.file_name) await rm(join(assetDir(this.dataDir), row.file_name), { force: true });
    return Number(result.numUpdatedRows) === 1;
  }
}

/** The asset as the actions return it (PascalCase, Ark style; times are ISO-8601 UTC). */
export function toAssetObject(row: Selectable<AssetTable>) {
  return {
    Id: row.id,
    Name: row.name,
    AssetType: row.asset_type as AssetType,
    Status: row.status,
    URL: row.source_url,
    MimeType: row.mime_type,
    Size: row.size_bytes === null ? null : Number(row.size_bytes),
    CreateTime: new Date(Number(row.created_at)).toISOString(),
  };
}
