import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, connectSqlite, type Db } from '../../src/db/connect.js';
import { DbFileStore } from '../../src/files/db-file-store.js';
import { DiskFileStore, filesDir } from '../../src/files/disk-file-store.js';
import type { FileStore, NewFile } from '../../src/files/file-store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';

const T0 = Date.UTC(2026, 0, 1);

/** `count` chunks of `size` bytes, noting how many the store pulled. */
function chunks(count: number, size: number, fill = 0x61): { content: AsyncIterable<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  return {
    content: (async function* () {
      for (let i = 0; i < count; i++) {
        pulled++;
        yield Buffer.alloc(size, fill + (i % 26));
      }
    })(),
    pulled: () => pulled,
  };
}

async function readAll(content: AsyncIterable<Uint8Array> | undefined): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of content ?? []) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

const upload = (content: AsyncIterable<Uint8Array>, over: Partial<NewFile> = {}): NewFile => ({ keyId: 'key_a', filename: 'in.jsonl', purpose: 'batch', expiresAt: null, content, maxBytes: 10_000, ...over });

/** Issue 46: both file stores stream content in and out, stop past the limit, and hide expired files. */
describe.each(['sqlite', 'postgres'] as const)('file store on %s', (kind) => {
  let db: Db;
  let dir: string;
  let database: TestDatabase | undefined;
  let store: FileStore;
  let now = T0;
  const leftovers = async () => ({
    rows: (await db.selectFrom('files').select('id').execute()).length,
    chunks: (await db.selectFrom('file_chunks').select('file_id').execute()).length,
    onDisk: existsSync(filesDir(dir)) ? readdirSync(filesDir(dir)) : [],
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-files-'));
    if (kind === 'sqlite') {
      db = await connectSqlite(dir);
      store = new DiskFileStore(db, dir, () => now);
    } else {
      database = await createTestDatabase();
      db = await connectPostgres(database.url, 2);
      // Small rows so a few kilobytes span several.
      store = new DbFileStore(db, () => now, 1000);
    }
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps content streamed in and gives the same bytes back, to its key only', async () => {
    const source = chunks(7, 999);
    const file = await store.put(upload(source.content));
    expect(file).toMatchObject({ id: expect.stringMatching(/^file-[0-9a-f]{24}$/), keyId: 'key_a', bytes: 6993, createdAt: T0 / 1000, expiresAt: null, filename: 'in.jsonl', purpose: 'batch' });
    const back = await readAll(await store.open('key_a', file.id));
    expect(back.length).toBe(6993);
    expect(back.subarray(999, 1000).toString()).toBe('b');
    expect(await store.get('key_b', file.id)).toBeUndefined();
    expect(await store.open('key_b', file.id)).toBeUndefined();
    expect(await store.delete('key_b', file.id)).toBe(false);
    expect(await store.delete('key_a', file.id)).toBe(true);
    expect(await store.open('key_a', file.id)).toBeUndefined();
    expect(await leftovers()).toEqual({ rows: 0, chunks: 0, onDisk: [] });
  });

  it('stops reading past maxBytes, keeps nothing and throws GW_REQ_TOO_LARGE', async () => {
    const source = chunks(100, 1000);
    await expect(store.put(upload(source.content, { maxBytes: 2500 }))).rejects.toMatchObject({ code: 'GW_REQ_TOO_LARGE', status: 413 });
    // The third chunk passed the limit: nothing after it was read.
    expect(source.pulled()).toBe(3);
    expect(await leftovers()).toEqual({ rows: 0, chunks: 0, onDisk: [] });
  });

  it('keeps nothing when the upload is refused once its content has arrived (settle throws)', async () => {
    const refused = new Error('purpose came last and was wrong');
    await expect(store.put(upload(chunks(3, 1000).content, { settle: async () => Promise.reject(refused) }))).rejects.toBe(refused);
    expect(await leftovers()).toEqual({ rows: 0, chunks: 0, onDisk: [] });
  });

  it('takes the purpose and expiry settle answers', async () => {
    const file = await store.put(upload(chunks(1, 10).content, { purpose: 'user_data', settle: async ({ bytes, createdAt }) => ({ purpose: 'batch', expiresAt: createdAt + bytes }) }));
    expect(file).toMatchObject({ purpose: 'batch', expiresAt: T0 / 1000 + 10 });
    expect(await store.delete('key_a', file.id)).toBe(true);
  });

  it('reads an expired file as absent, and the sweep removes its content', async () => {
    const file = await store.put(upload(chunks(2, 800).content, { expiresAt: now / 1000 + 3600 }));
    expect((await store.list('key_a', { limit: 10, order: 'desc' })).data.map((f) => f.id)).toEqual([file.id]);
    now += 3600_000;
    expect(await store.get('key_a', file.id)).toBeUndefined();
    expect(await store.open('key_a', file.id)).toBeUndefined();
    expect((await store.list('key_a', { limit: 10, order: 'desc' })).data).toEqual([]);
    expect(await store.delete('key_a', file.id)).toBe(false);
    expect(await store.sweep!()).toBe(1);
    expect(await leftovers()).toEqual({ rows: 0, chunks: 0, onDisk: [] });
  });

  it('sweeps an upload left midway (a stopped instance) once it is hours old', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const content = (async function* () {
      yield Buffer.alloc(1500, 0x61);
      await held;
    })();
    const put = store.put(upload(content));
    put.catch(() => undefined);
    await expect.poll(async () => (await leftovers()).rows).toBe(1);
    expect(await store.sweep!()).toBe(0);
    now += 6 * 3600_000 + 1;
    expect(await store.sweep!()).toBe(1);
    expect(await leftovers()).toEqual({ rows: 0, chunks: 0, onDisk: [] });
    // Should it wake up after all, it finds its row gone and keeps nothing.
    release();
    await expect(put).rejects.toThrow();
    expect(await leftovers()).toEqual({ rows: 0, chunks: 0, onDisk: [] });
  });

  it('pages a key’s files by creation time in either order, with a purpose filter', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      now += 1000;
      ids.push((await store.put(upload(chunks(1, 5).content, { purpose: i % 2 === 0 ? 'batch' : 'user_data' }))).id);
    }
    await store.put(upload(chunks(1, 5).content, { keyId: 'key_b' }));
    const first = await store.list('key_a', { limit: 2, order: 'desc' });
    expect(first).toEqual({ data: [expect.objectContaining({ id: ids[4] }), expect.objectContaining({ id: ids[3] })], hasMore: true });
    const rest = await store.list('key_a', { limit: 10, order: 'desc', after: ids[3] });
    expect(rest.data.map((f) => f.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(rest.hasMore).toBe(false);
    expect((await store.list('key_a', { limit: 10, order: 'asc', after: ids[1] })).data.map((f) => f.id)).toEqual(ids.slice(2));
    expect((await store.list('key_a', { limit: 10, order: 'asc', purpose: 'user_data' })).data.map((f) => f.id)).toEqual([ids[1], ids[3]]);
    expect(await store.list('key_b', { limit: 10, order: 'asc', after: ids[1] })).toEqual({ data: [], hasMore: false });
  });
});
