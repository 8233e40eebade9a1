import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SQLITE_FILE } from '../db/connect.js';
import { SECRET_KEY_FILE } from '../keys/secret-box.js';

/**
 * What `gateway` creates is its user's alone (issue 34): the data directory holds request and
 * response bodies, channels' base URLs, sealed credentials and the key that opens them. A umask
 * of 077 makes every file 0600 and every directory 0700 whatever the shell's umask (022 makes
 * them world-readable), including SQLite's -wal and -shm (SQLite gives them the database file's
 * mode) and files written by libraries.
 */
export const PRIVATE_UMASK = 0o077;

/** Files a version before issue 34 left readable by others; what they hold is named above. */
const KNOWN_FILES = [SQLITE_FILE, `${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`, SECRET_KEY_FILE];

/**
 * Creates the data directory 0700, or makes an existing one 0700 (which alone closes everything
 * inside to other users), and the store's and the secret key's files 0600. A directory this user
 * does not own (a volume mounted by another) cannot be changed: `warn` says so, and the start goes on.
 */
export function makeDataDirPrivate(dataDir: string, warn: (line: string) => void): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tighten(dataDir, 0o700, warn);
  for (const name of KNOWN_FILES) tighten(join(dataDir, name), 0o600, warn);
}

function tighten(path: string, mode: number, warn: (line: string) => void): void {
  try {
    if ((statSync(path).mode & 0o777 & ~mode) === 0) return;
    chmodSync(path, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    warn(`could not make ${path} private (mode ${mode.toString(8)}): ${(error as Error).message}`);
  }
}
