import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSqlite, SQLITE_FILE, type Db } from '../../src/db/connect.js';
import { PrimaryWriterClient, serveWorkerWrites } from '../../src/db/primary-writer.js';
import { SqliteWriter } from '../../src/db/sqlite-writer.js';
import { isStoreUnavailable } from '../../src/db/store-errors.js';

const INSERT = 'insert into request_details (entry_id, request_id, created_at, retries, fallbacks) values (?, ?, ?, ?, ?)';

/**
 * A worker's end and the primary's end of a cluster channel, in one process: messages cross as
 * JSON, asynchronously, as over the IPC pipe. `cut()` is the primary going away.
 */
function channelPair(writer: SqliteWriter) {
  const workerEnd = Object.assign(new EventEmitter(), {
    connected: true,
    send(message: unknown, _handle: unknown, _options: unknown, done: (error: Error | null) => void) {
      const text = JSON.stringify(message);
      setImmediate(() => {
        serveWorkerWrites(primaryEnd, JSON.parse(text), writer);
        done(null);
      });
      return true;
    },
  });
  const primaryEnd = {
    isConnected: () => workerEnd.connected,
    send(message: unknown) {
      const text = JSON.stringify(message);
      setImmediate(() => workerEnd.emit('message', JSON.parse(text)));
      return true;
    },
  };
  const cut = () => {
    workerEnd.connected = false;
    workerEnd.emit('disconnect');
  };
  return { client: new PrimaryWriterClient(workerEnd as unknown as NodeJS.Process), cut };
}

/** Another connection (another worker's, or a tool's) takes the write lock. */
function holdWriteLock(dir: string): () => void {
  const other = new SqliteDatabase(join(dir, SQLITE_FILE));
  other.exec('begin immediate');
  return () => {
    other.exec('commit');
    other.close();
  };
}

describe("GATEWAY_WORKERS: a worker's batches commit on the primary's writer thread (issue 36)", () => {
  let dir: string;
  let db: Db | undefined;
  afterEach(async () => {
    await db?.destroy();
    db = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('batches commit in the order posted, and a close waits for those still waiting on the lock', async () => {
    dir = mkdtempSync(join(tmpdir(), 'primary-writer-'));
    db = await connectSqlite(dir);
    const writer = new SqliteWriter(join(dir, SQLITE_FILE));
    const { client } = channelPair(writer);
    const release = holdWriteLock(dir);
    const posted = [1, 2, 3].map((b) => client.write(INSERT, undefined, [[`e_${b}a`, `req_${b}a`, b, 0, 0], [`e_${b}b`, `req_${b}b`, b, 0, 0]]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.waiting).toBe(3);
    setTimeout(release, 50);
    await client.close();
    expect(client.waiting).toBe(0);
    await Promise.all(posted);
    const check = new SqliteDatabase(join(dir, SQLITE_FILE), { readonly: true });
    const rows = check.prepare('select request_id from request_details order by rowid').all() as Array<{ request_id: string }>;
    check.close();
    expect(rows.map((r) => r.request_id)).toEqual(['req_1a', 'req_1b', 'req_2a', 'req_2b', 'req_3a', 'req_3b']);
    await expect(client.write(INSERT, undefined, [])).rejects.toThrow('closed');
    await writer.close();
  });

  it("a failed batch comes back with its SQLite code, and a primary that is gone fails what waits (its writers keep the rows)", async () => {
    dir = mkdtempSync(join(tmpdir(), 'primary-writer-'));
    db = await connectSqlite(dir);
    const writer = new SqliteWriter(join(dir, SQLITE_FILE), 50);
    const { client, cut } = channelPair(writer);
    const release = holdWriteLock(dir);
    const busy = await client.write(INSERT, undefined, [['e', 'r', 1, 0, 0]]).catch((error: unknown) => error);
    expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
    expect(isStoreUnavailable(busy)).toBe(true);
    const waiting = client.write(INSERT, undefined, [['e2', 'r2', 1, 0, 0]]).catch((error: unknown) => error);
    cut();
    expect(((await waiting) as Error).message).toContain('primary process is gone');
    await expect(client.write(INSERT, undefined, [['e3', 'r3', 1, 0, 0]])).rejects.toThrow('primary process is gone');
    release();
    await writer.close();
  });
});
