import SqliteDatabase from 'better-sqlite3';

/**
 * `gateway db compact` (issue 22): a one-time VACUUM that turns a SQLite file made before
 * incremental auto-vacuum existed into one that gives deleted rows' pages back to the file system
 * (db/retention.ts does that a step at a time from then on). VACUUM rewrites the whole file and
 * holds the write lock meanwhile, so the gateway must be stopped; it needs free disk space about
 * the size of the file.
 */
export function compactSqlite(file: string): { beforeBytes: number; afterBytes: number } {
  const sqlite = new SqliteDatabase(file, { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 2000');
    const size = () => (sqlite.pragma('page_count', { simple: true }) as number) * (sqlite.pragma('page_size', { simple: true }) as number);
    const beforeBytes = size();
    sqlite.pragma('auto_vacuum = INCREMENTAL');
    sqlite.exec('VACUUM');
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    return { beforeBytes, afterBytes: size() };
  } finally {
    sqlite.close();
  }
}
