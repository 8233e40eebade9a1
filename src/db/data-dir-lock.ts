import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** In the data directory while a gateway serves from it: the holder's pid, one line. */
export const LOCK_FILE = 'gateway.lock';

/** Another live process holds the data directory: the start stops with this message. */
export class DataDirInUseError extends Error {}

export interface DataDirLock {
  /** Removes the lock file if it is still this process's (idempotent; run at exit). */
  release(): void;
}

/**
 * One gateway per embedded store (issue 34): two processes on one SQLite directory would each
 * enforce rate limits and budgets alone (the limits double) and replay each other's usage
 * journal. The lock file is created exclusively (as O_EXCL would); a lock whose pid is dead (a killed gateway) or is
 * this very pid (a container restarted as pid 1 with the same volume) is stale and taken over.
 * Short CLI commands (`keys`, `admin`) do not take it: they share the file through SQLite's own
 * locking while a gateway runs.
 */
export function lockDataDir(dataDir: string, pid: number = process.pid): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  // A few rounds: another start may create, or take over, the file between our steps.
  for (let round = 0; round < 5; round++) {
    if (tryCreate(path, pid)) return { release: () => releaseIfHeld(path, pid) };
    const holder = readHolder(path);
    if (holder !== undefined && holder !== pid && isAlive(holder)) {
      throw new DataDirInUseError(
        `the data directory ${dataDir} is in use by another gateway (pid ${holder}, lock file ${path}): ` +
          'stop that one first, or give this one its own GATEWAY_DATA_DIR (several instances share a store through DATABASE_URL). ' +
          `If pid ${holder} is not a gateway, delete ${path}.`,
      );
    }
    removeStale(path, holder, pid);
  }
  throw new DataDirInUseError(`could not take the lock file ${path}: other starts keep taking it`);
}

/**
 * Creates the lock file with its content in one step: written aside, then hard-linked to its name,
 * which fails if the name exists (O_EXCL's guarantee). Another start never reads it empty.
 */
function tryCreate(path: string, pid: number): boolean {
  const fresh = `${path}.${pid}.new`;
  writeFileSync(fresh, `${pid}\n`, { mode: 0o600 });
  try {
    linkSync(fresh, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(fresh, { force: true });
  }
}

/** The pid in the file; undefined when it is gone or holds no pid (not written by a gateway). */
function readHolder(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Moves the stale file aside by rename (atomic: of two starts taking over, one moves it). If what
 * was moved is not the stale lock read a moment ago, another start has just made its own: it is
 * put back, and the next round finds it alive.
 */
function removeStale(path: string, stalePid: number | undefined, pid: number): void {
  const aside = `${path}.${pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (readHolder(aside) !== stalePid) {
    try {
      linkSync(aside, path);
    } catch {
      // A third start made one meanwhile: that one is the lock now.
    }
  }
  rmSync(aside, { force: true });
}

function releaseIfHeld(path: string, pid: number): void {
  if (readHolder(path) === pid) rmSync(path, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
