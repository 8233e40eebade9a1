import type { Db } from '../db/connect.js';
import { dialectOf } from '../db/dialect.js';
import { DbFileStore } from './db-file-store.js';
import { DiskFileStore } from './disk-file-store.js';
import type { FileStore } from './file-store.js';

/**
 * The one place the file store is picked: on PostgreSQL (DATABASE_URL, possibly several
 * instances) the content goes into the database every instance reads; on the embedded SQLite
 * store, into the data directory beside it.
 */
export function chooseFileStore(db: Db, dataDir: string, now: () => number = Date.now): FileStore {
  return dialectOf(db) === 'postgres' ? new DbFileStore(db, now) : new DiskFileStore(db, dataDir, now);
}
